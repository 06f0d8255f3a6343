"""The result budget on the wire: our server (and gateway) as a subprocess over stdio, with the
SDK's own client, and a remote server's tools as a source of an in-process registry."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from adapters.mcp_client import McpClientPool
from adapters.mcp_server import ServeSettings, create_app
from tests.support import big_results
from tests.support.big_results import NEEDLE
from tests.support.serving import serving
from tests.support.sse import sse_events
from toolkit import CallOptions, ToolRegistry
from toolkit.results.budget import NO_BUDGET, READ_RESULT

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


def _rpc(base: str, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": "2025-11-25",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer = httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200, answer.text
    if answer.headers["content-type"].startswith("application/json"):
        reply: dict[str, Any] = answer.json()
        return reply
    (data,) = [e["data"] for e in sse_events(iter(answer.text.splitlines())) if e.get("data")]
    parsed: dict[str, Any] = json.loads(data)
    return parsed


def test_over_http_a_cut_result_is_read_back_by_its_caller_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALICE_TOKEN", "alice-token-0123456789")
    monkeypatch.setenv("BOB_TOKEN", "bob-token-9876543210")
    callers = tmp_path / "callers.json"
    tokens = {"alice": {"token": "${ALICE_TOKEN}"}, "bob": {"token": "${BOB_TOKEN}"}}
    callers.write_text(json.dumps({"callers": tokens}))
    settings = ServeSettings(target=SERVED, callers=str(callers), telemetry=False)
    alice, bob = "alice-token-0123456789", "bob-token-9876543210"
    with serving(create_app(settings)) as base:
        cut = _rpc(base, alice, "tools/call", {"name": "csv_table", "arguments": {"mb": 1}})
        text = cut["result"]["content"][0]["text"]
        call_id = _call_id(text)
        read = {"name": READ_RESULT, "arguments": {"call_id": call_id, "find": "S-0031337"}}
        mine = _rpc(base, alice, "tools/call", read)
        theirs = _rpc(base, bob, "tools/call", read)
        resource = {"uri": f"result://{call_id}"}
        full = _rpc(base, alice, "resources/read", resource)
        refused = _rpc(base, bob, "resources/read", resource)
    assert len(text) <= 20_000 and "[Result cut" in text
    assert "31337,S-0031337" in mine["result"]["content"][0]["text"]
    assert (
        theirs["result"]["isError"] and "No kept result" in theirs["result"]["content"][0]["text"]
    )
    assert full["result"]["contents"][0]["text"] == big_results.csv_table(1)
    assert "error" in refused and "No kept result" in refused["error"]["message"]
