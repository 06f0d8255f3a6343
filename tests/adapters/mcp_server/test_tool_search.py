"""``--tool-search``: tools/list holds a search tool and a call tool; found tools are called by
name; paging works in both modes. Over stdio (the CLI) and in process, with the SDK's client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app
from adapters.mcp_server._callers import load_callers
from tests.adapters.mcp_server.conftest import serving
from tests.adapters.mcp_server.test_callers import (
    ALICE,
    BOB,
    _client,
    admins_only,
    delete_everything,
    whoami,
)
from tests.support import served_registry
from tests.support.listing import tool_names_and_pages
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
TARGET = "tests.support.served_registry:registry"


def _params(*args: str) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "adapters.mcp_server", *args], env=env, cwd=str(ROOT)
    )


def _text(result: Any) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_cli_lists_search_and_call_and_found_tools_are_called_by_name(mode: str) -> None:
    params = _params(TARGET, "--tool-search", "0", "--page-size", "1")
    async with Client(params, mode=mode) as client:
        names, pages = await tool_names_and_pages(client)
        found = await client.call_tool("search_tools", {"query": "warehouse bin code", "limit": 2})
        direct = await client.call_tool("find_bin", {"code": "B-7"})
        wrapped = await client.call_tool(
            "call_tool", {"name": "add", "arguments": {"a": 40, "b": 2}}
        )
        failed = await client.call_tool("call_tool", {"name": "find_bin", "arguments": {}})
    assert names == ["search_tools", "call_tool"] and pages == 2
    tools = found.structured_content["tools"]
    assert tools[0]["name"] == "find_bin"
    assert tools[0]["inputSchema"]["required"] == ["code"]
    assert json.loads(_text(found))[0]["description"].startswith("Find a warehouse bin")
    assert direct.structured_content == {"code": "B-7", "zone": "north"}
    assert wrapped.structured_content == {"result": 42}
    assert failed.is_error and "code" in _text(failed)


async def test_the_most_used_tools_are_listed_and_paging_covers_both_modes() -> None:
    registry = served_registry.numbered(30)
    async with Client(build_server(registry, page_size=7), mode="legacy") as client:
        every, pages = await tool_names_and_pages(client)
        assert every == registry.names() and pages == 5
    server = build_server(registry, page_size=2, tool_search=2)
    async with Client(server, mode="legacy") as client:
        assert (await tool_names_and_pages(client))[0] == ["search_tools", "call_tool"]
        for name, times in (("tool_7", 3), ("tool_3", 2), ("tool_9", 1)):
            for _ in range(times):
                await client.call_tool(name, {"text": "x"})
        names, pages = await tool_names_and_pages(client)
    assert names == ["search_tools", "call_tool", "tool_7", "tool_3"] and pages == 2


async def test_bad_search_and_call_arguments_are_results_the_model_reads_and_fixes() -> None:
    server = build_server(served_registry.build(), tool_search=0)
    async with Client(server, mode="legacy") as client:
        failed = []
        bad: list[tuple[str, dict[str, Any], str]] = [
            ("search_tools", {}, "query"),
            ("search_tools", {"query": "  "}, "query"),
            ("search_tools", {"query": "bin", "limit": 500}, "limit"),
            ("call_tool", {"arguments": {}}, "name"),
            ("call_tool", {"name": "echo", "arguments": [1]}, "JSON object"),
        ]
        for tool, arguments, words in bad:
            result = await client.call_tool(tool, arguments)
            failed.append((result, "INVALID_PARAMS", words))
        unknown = await client.call_tool("call_tool", {"name": "ecko", "arguments": {}})
        failed.append((unknown, "TOOL_NOT_FOUND", "echo"))  # the closest name, to pick instead
        fixed = await client.call_tool("call_tool", {"name": "echo", "arguments": {"text": "x"}})
        with pytest.raises(MCPError) as direct:  # called by its own name: the spec's error
            await client.call_tool("no_such_tool", {})
        empty = await client.call_tool("search_tools", {"query": "zyxxy"})
    for result, code, words in failed:
        assert result.is_error and words in _text(result)
        assert (result.meta or {})["mcp-toolkit/error"]["code"] == code
    assert "ecko" in _text(unknown) and _text(fixed) == "x"
    assert direct.value.code == types.INVALID_PARAMS and "no_such_tool" in direct.value.message
    assert empty.structured_content == {"tools": []} and "No tool matches" in _text(empty)


async def test_a_registered_tool_named_like_a_meta_tool_wins() -> None:
    registry = served_registry.build()
    registry.register(served_registry.echo, name="search_tools")
    async with Client(build_server(registry, tool_search=0), mode="legacy") as client:
        result = await client.call_tool("search_tools", {"text": "mine"})
    assert _text(result) == "mine"


@pytest.fixture(scope="module")
def callers_url() -> Any:
    mp = pytest.MonkeyPatch()
    mp.setenv("ALICE_TOKEN", ALICE)
    mp.setenv("BOB_TOKEN", BOB)
    callers = load_callers(
        {
            "callers": {
                "alice": {"token": "${ALICE_TOKEN}", "scopes": ["admin"]},
                "bob": {"token": "${BOB_TOKEN}", "scopes": ["read"]},
            }
        }
    )
    registry = ToolRegistry(policy=admins_only)
    registry.register(whoami)
    registry.register(delete_everything)
    with serving(http_app(build_server(registry, callers=callers, tool_search=2))) as url:
        yield url
    mp.undo()


async def test_a_caller_finds_only_the_tools_the_policy_lets_them_see(callers_url: str) -> None:
    async with _client(callers_url, ALICE) as alice:
        await alice.call_tool("delete_everything", {})
        alice_found = await alice.call_tool("search_tools", {"query": "delete everything"})
        alice_listed = [t.name for t in (await alice.list_tools()).tools]
    async with _client(callers_url, BOB) as bob:
        bob_found = await bob.call_tool("search_tools", {"query": "delete everything"})
        bob_listed = [t.name for t in (await bob.list_tools()).tools]
    assert [t["name"] for t in alice_found.structured_content["tools"]] == ["delete_everything"]
    assert "delete_everything" in alice_listed
    assert bob_found.structured_content == {"tools": []}
    assert "delete_everything" not in bob_listed


async def test_the_gateway_finds_and_calls_a_remote_servers_tools(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    remote = {
        "command": sys.executable,
        "args": [str(ROOT / "tests" / "support" / "mcp_servers" / "echo_server.py")],
        "cwd": str(ROOT),
    }
    config.write_text(json.dumps({"mcpServers": {"far": remote}}))
    params = _params(TARGET, "--config", str(config), "--tool-search", "1")
    async with Client(params, mode="legacy") as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("search_tools", {"query": "tiny png picture", "limit": 1})
        (tool,) = found.structured_content["tools"]
        picture = await client.call_tool(tool["name"], {})
        summed = await client.call_tool(
            "call_tool", {"name": "far_add", "arguments": {"a": 2, "b": 3}}
        )
        relisted = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == ["search_tools", "call_tool"]
    assert tool["name"] == "far_picture"
    assert any(isinstance(c, types.ImageContent) for c in picture.content)
    assert _text(summed) == "5"
    assert relisted == ["search_tools", "call_tool", "far_picture"]
