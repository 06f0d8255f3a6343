"""The MCP client pool as a Toolset, against a real MCP server subprocess."""

from __future__ import annotations

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.adapters.mcp_client.conftest import stdio
from toolkit import ErrorCode, ToolRegistry, Toolset

pytestmark = pytest.mark.anyio

CONFIG = {"echoes": stdio(prefix="e_")}


async def test_a_remote_tool_gets_a_pinned_argument_and_a_new_name() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        assert isinstance(pool, Toolset)
        registry = ToolRegistry()
        toolset = (
            pool.filtered(lambda tool: tool.name in {"e_add", "e_echo"})
            .renamed({"e_add": "add_forty"})
            .pinned({"add_forty": {"b": 40}})
        )
        await registry.add_toolset(toolset)
        assert sorted(registry.names()) == ["add_forty", "e_echo"]
        spec = registry.get("add_forty").spec
        assert list(spec.parameters) == ["a"] and spec.required == ["a"]
        result = await registry.call("add_forty", {"a": 2})
        assert not result.is_error, result.content
        assert result.content == "42"
        refused = await registry.call("add_forty", {"a": 2, "b": 1})
        assert refused.code == ErrorCode.INVALID_PARAMS


async def test_the_registry_follows_the_servers_list_changes_through_the_toolset() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await registry.add_toolset(pool.prefixed("via"))
        assert "via_e_grow" in registry
        await registry.call("via_e_grow", {"name": "sprout"})
        with anyio.fail_after(10):
            while "via_e_sprout" not in registry:
                await anyio.sleep(0.05)
        assert (await registry.call("via_e_sprout", {})).content == "sprout"


def test_sync_code_adds_the_pool_as_a_toolset() -> None:
    with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        registry.add_toolset_sync(pool.filtered(lambda tool: tool.name == "e_echo"))
        assert registry.names() == ["e_echo"]
        assert registry.call_sync("e_echo", {"text": "hi"}).content == "hi"
