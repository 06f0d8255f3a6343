"""A quarantined remote tool is neither bound by ``build_agent`` nor found by its tool search."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from adapters.langgraph import build_agent
from adapters.mcp_client import McpClientPool
from adapters.testing import ScriptedChatModel
from tests.adapters.mcp_client.conftest import stdio
from tests.support.poisoning import BASE, poisoned_listing
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio


async def test_the_agent_neither_binds_nor_finds_a_quarantined_tool(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": list(BASE.values())}))
    server = stdio("shifty_server.py", str(tools), trust="first-use")
    async with McpClientPool({"s": server}, lock=tmp_path / "mcp.lock.json") as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        before = ScriptedChatModel(turns=["ok"])
        await build_agent(before, registry).ainvoke({"messages": [("user", "hi")]})
        assert "s_search" in before.calls[0].tools
        tools.write_text(json.dumps({"tools": poisoned_listing()}))
        await registry.call("s_announce", {})
        with anyio.fail_after(30):
            while "s_search" in registry:
                await anyio.sleep(0.05)
        bound = ScriptedChatModel(turns=["ok"])
        await build_agent(bound, registry).ainvoke({"messages": [("user", "hi")]})
        searching = ScriptedChatModel(
            turns=[
                {"tool_calls": [{"name": "search_tools", "args": {"query": "search the notes"}}]},
                "done",
            ]
        )
        state = await build_agent(searching, registry, tool_search=3).ainvoke(
            {"messages": [("user", "find notes")]}
        )
    assert set(bound.calls[0].tools) == {"s_announce", "s_crash"}
    found = [str(m.content) for m in state["messages"] if m.type == "tool"]
    assert found and not any("s_search" in text for text in found)
    assert all("s_search" not in call.tools for call in searching.calls)
