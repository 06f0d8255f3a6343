"""A client hammering the server: each caller's budget per window and rate limits hold, over
stdio (``toolkit serve --budget``, with the search mode's ``call_tool`` and a gateway's remote
tools counted) and over HTTP (``create_app(budget=...)``, callers told apart)."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from adapters.cli._serve import app as serve_app
from adapters.mcp_server import ServeSettings, create_app, serve_command
from tests.adapters.mcp_server.conftest import serving
from toolkit import RunBudget

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
TARGET = "tests.support.served_registry:registry"
#: The module itself: scanned into a fresh registry by each app (the one above is shared).
MODULE = "tests.support.served_registry"


def _text(result: Any) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _code(result: Any) -> str | None:
    text = _text(result)
    return text.split("]")[0].removeprefix("Error [") if result.is_error else None


async def test_the_cli_budget_counts_search_mode_and_gateway_calls(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    remote = {
        "command": sys.executable,
        "args": [str(ROOT / "tests" / "support" / "mcp_servers" / "echo_server.py")],
        "cwd": str(ROOT),
    }
    config.write_text(json.dumps({"mcpServers": {"far": remote}}))
    args = [TARGET, "--config", str(config), "--tool-search", "0"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "adapters.mcp_server", *args, "--budget", "calls=6,repeats=2"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
    )
    async with Client(params, mode="legacy") as client:
        same = [await client.call_tool("find_bin", {"code": "B-1"}) for _ in range(3)]
        wrapped = await client.call_tool("call_tool", {"name": "add", "arguments": {"a": 1}})
        remote_sum = await client.call_tool(
            "call_tool", {"name": "far_add", "arguments": {"a": 2, "b": 3}}
        )
        last = await client.call_tool("find_bin", {"code": "B-2"})
        hammered = [await client.call_tool("find_bin", {"code": f"B-{i}"}) for i in range(5)]
    assert [_code(r) for r in same] == [None, None, "REPEATED_CALL"]
    assert "Its earlier result:" in _text(same[2])
    assert _text(wrapped) == "2" and _text(remote_sum) == "5" and _code(last) is None
    assert {_code(r) for r in hammered} == {"BUDGET_EXCEEDED"}
    assert "answer now with what you have" in _text(hammered[0])


def _http_client(base_url: str, user: str) -> Client:
    http = httpx2.AsyncClient(headers={"X-User": user}, timeout=httpx2.Timeout(30))
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode="legacy")


async def _hammer(client: Client, count: int) -> Counter[str | None]:
    codes: Counter[str | None] = Counter()

    async def one(i: int) -> None:
        codes[_code(await client.call_tool("add", {"a": i}))] += 1

    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one, i)
    return codes


async def test_a_caller_hammering_the_http_app_gets_its_budget_and_no_more() -> None:
    settings = ServeSettings(target=MODULE, telemetry=False, caller_header="X-User")
    app = create_app(settings, budget=RunBudget(calls=5, window=3600))
    with serving(app) as url:
        async with _http_client(url, "ann") as ann, _http_client(url, "bo") as bo:
            hammered = await _hammer(ann, 30)
            other = await bo.call_tool("add", {"a": 1})
    assert hammered == {None: 5, "BUDGET_EXCEEDED": 25}
    assert _code(other) is None  # another caller has a run of its own


async def test_a_rate_limit_from_the_environment_says_when_to_retry() -> None:
    env = {"TOOLKIT_TARGET": MODULE, "TOOLKIT_OTEL": "0", "TOOLKIT_RATE_LIMIT": "caller=3"}
    settings = ServeSettings.from_env({**env, "TOOLKIT_CALLER_HEADER": "X-User"})
    assert ServeSettings.from_env(settings.to_env()).rate_limit == "caller=3"
    with serving(create_app(settings)) as url:
        async with _http_client(url, "ann") as ann, _http_client(url, "bo") as bo:
            hammered = await _hammer(ann, 10)
            refused = await ann.call_tool("add", {"a": 1})
            other = await bo.call_tool("add", {"a": 1})
    assert hammered == {None: 3, "RATE_LIMITED": 7}
    assert "try again in" in _text(refused) and _code(other) is None


@pytest.mark.parametrize(("flag", "value"), [("budget", "calls=lots"), ("rate_limit", "users=3")])
def test_a_wrong_limit_stops_serve_with_how_to_write_it(flag: str, value: str) -> None:
    with pytest.raises(ValueError, match=r"NAME=NUMBER|names no limit"):
        serve_command(ServeSettings(target=TARGET, **{flag: value}))


def test_the_serve_command_line_refuses_a_wrong_budget_with_exit_2() -> None:
    result = CliRunner().invoke(serve_app, [TARGET, "--budget", "turns=3"])
    assert result.exit_code == 2
    assert "names no limit" in result.output and "per_tool.TOOL" in result.output
    shown = CliRunner().invoke(serve_app, ["--help"], env={"COLUMNS": "200"})
    assert "--budget" in shown.output and "--rate-limit" in shown.output
