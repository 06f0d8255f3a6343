"""The result budget on the wire: our server (and gateway) as a subprocess over stdio, with the
SDK's own client, and a remote server's tools as a source of an in-process registry."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from adapters.mcp_client import McpClientPool
from tests.support import big_results
from tests.support.big_results import NEEDLE
from toolkit import CallOptions, ToolRegistry
from toolkit.result_budget import NO_BUDGET, READ_RESULT

ROOT = Path(__file__).resolve().parents[3]
SERVED = "tests.support.big_results:registry"  # a budget of 20,000 characters
WHOLE = "tests.support.big_results:whole"  # no budget


def _params(*args: str) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "adapters.mcp_server", *args], env=env, cwd=str(ROOT)
    )


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _call_id(text: str) -> str:
    return text.rsplit('call_id="', 1)[1].split('"', 1)[0]


@pytest.mark.anyio
async def test_the_gateway_cuts_a_remote_result_and_serves_read_result_and_the_resource(
    tmp_path: Path,
) -> None:
    config = tmp_path / "mcp.json"
    remote = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", WHOLE],
        "env": {"PYTHONPATH": str(ROOT)},
        "cwd": str(ROOT),
    }
    config.write_text(json.dumps({"mcpServers": {"wh": remote}}))
    async with Client(_params(SERVED, "--config", str(config)), mode="legacy") as client:
        before = [tool.name for tool in (await client.list_tools()).tools]
        cut = await client.call_tool("wh_haystack", {"mb": 3, "seed": 11})
        after = [tool.name for tool in (await client.list_tools()).tools]
        call_id = _call_id(_text(cut))
        found = await client.call_tool(READ_RESULT, {"call_id": call_id, "find": NEEDLE})
        local = await client.call_tool("json_array", {"mb": 1})
        templates = (await client.list_resource_templates()).resource_templates
        full = await client.read_resource(f"result://{call_id}")
        unknown = await client.call_tool(READ_RESULT, {"call_id": "someone-else"})
    assert READ_RESULT not in before and READ_RESULT in after  # offered once a result was cut
    assert not cut.is_error and len(_text(cut)) <= 20_000
    assert f"{NEEDLE} is in bin B-11" in _text(found) and len(_text(found)) <= 20_000
    value, end = json.JSONDecoder().raw_decode(_text(local))
    assert _text(local)[end:].startswith("\n[Result cut") and value[0]["id"] == 0
    assert "result://{call_id}" in [t.uri_template for t in templates]
    (contents,) = full.contents
    expected = big_results.haystack(3, 11)
    assert isinstance(contents, types.TextResourceContents)
    assert contents.text.encode() == expected.encode()  # byte for byte, across two processes
    assert unknown.is_error and "No kept result" in _text(unknown)


@pytest.fixture(scope="module")
def remote() -> Iterator[ToolRegistry]:
    server = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", WHOLE],
        "cwd": str(ROOT),
        "env": {"PYTHONPATH": str(ROOT)},
    }
    with McpClientPool({"mcpServers": {"wh": server}}) as pool:
        registry = ToolRegistry(result_budget=10_000)
        pool.register_into_sync(registry, prefix="")
        yield registry


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("json_object", {"mb": 2}),
        ("json_text", {"mb": 2}),
        ("html_page", {"mb": 2}),
        ("image", {"kb": 100}),
    ],
)
def test_a_remote_tools_result_is_cut_like_a_local_ones(
    remote: ToolRegistry, tool: str, arguments: dict[str, float]
) -> None:
    cut = remote.call_sync(tool, arguments)
    whole = remote.call_sync(tool, arguments, options=CallOptions(result_budget=NO_BUDGET))
    assert cut.cut is not None and cut.cut.shown_size <= 10_000
    assert cut.record is not None and cut.record.full_size == cut.cut.full_size
    kept = remote.settings.result_store.get(cut.call_id)  # type: ignore[union-attr]
    assert kept is not None and kept.text == whole.content
    if whole.content.startswith("{"):  # the text is the JSON of the structured content
        value, _ = json.JSONDecoder().raw_decode(cut.content)
        assert list(value) == list(whole.structured)
    if whole.content.startswith("["):  # JSON as text only: whole items, still JSON
        value, end = json.JSONDecoder().raw_decode(cut.content)
        assert value == json.loads(whole.content)[: len(value)]
        assert cut.content[end:].startswith("\n[Result cut")
