"""Search over remote tools follows the server: a ``list_changed`` refresh changes the results."""

from __future__ import annotations

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.adapters.mcp_client.conftest import stdio
from toolkit.registry import ToolRegistry

pytestmark = pytest.mark.anyio


async def test_a_tool_announced_by_list_changed_is_found_by_the_next_search() -> None:
    async with McpClientPool({"modern": stdio()}, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"])
        assert registry.search("added at runtime lighthouse") == []
        await registry.call("modern_grow", {"name": "lighthouse"})
        with anyio.fail_after(10):
            while "modern_lighthouse" not in registry:
                await anyio.sleep(0.05)
        found = await registry.search_async("lighthouse added at runtime", k=1)
        assert [t.name for t in found] == ["modern_lighthouse"]
