"""Our server as a subprocess started by the CLI, over stdio, with the SDK's own client: both
protocol generations, and the gateway serving a remote server's tools next to local ones."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from adapters.mcp_server import ERROR_META_KEY

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
TARGET = "tests.support.served_registry:registry"


def _params(*args: str) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "adapters.mcp_server", *args], env=env, cwd=str(ROOT)
    )


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_cli_serves_over_stdio(mode: str) -> None:
    async with Client(_params(TARGET, "--name", "warehouse"), mode=mode) as client:
        assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        assert client.server_info is not None and client.server_info.name == "warehouse"
        names = [tool.name for tool in (await client.list_tools()).tools]
        ok = await client.call_tool("add", {"a": 40, "b": 2})
        failed = await client.call_tool("find_bin", {"code": "nowhere"})
    assert names == ["echo", "add", "find_bin", "slow"]
    assert ok.structured_content == {"result": 42}
    assert failed.is_error and "bin nowhere not found" in _text(failed)


async def test_the_gateway_serves_remote_and_local_tools_with_our_errors(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    remote = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", TARGET],
        "env": {"PYTHONPATH": str(ROOT)},
        "cwd": str(ROOT),
    }
    config.write_text(json.dumps({"mcpServers": {"wh": remote}}))
    async with Client(_params(TARGET, "--config", str(config)), mode="legacy") as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        remote_ok = await client.call_tool("wh_echo", {"text": "via gateway"})
        remote_failed = await client.call_tool("wh_find_bin", {"code": "Q"})
        local_failed = await client.call_tool("find_bin", {"code": "Q"})
    assert names == [
        "echo",
        "add",
        "find_bin",
        "slow",
        "wh_echo",
        "wh_add",
        "wh_find_bin",
        "wh_slow",
    ]
    assert _text(remote_ok) == "via gateway"
    for failed in (remote_failed, local_failed):
        assert failed.is_error
        assert "bin Q not found in warehouse" in _text(failed)
        assert failed.meta is not None and ERROR_META_KEY in failed.meta


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))
