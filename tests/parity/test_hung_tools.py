"""A sync tool that never returns ends in ``TIMEOUT`` at the registry's default deadline through
every kind of sink: LangChain ``invoke``, a LangGraph agent's ``invoke`` (its tools run in
LangGraph's own thread pool, which then waits on ours), ``ToolNode`` under ``ainvoke``, and the
MCP server, in both protocol generations.

The deadline comes from the registry (``ToolRegistry(timeout=...)``), the setting every user
gets by default (300 s), shortened here. Each wait is bounded, so a sink that would hang fails
its test instead of hanging the run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from mcp import Client

from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from adapters.mcp_server import ERROR_META_KEY, build_server
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio

RELEASE = threading.Event()


def hang(order: str) -> str:
    """Look an order up in a system that stopped answering.

    Args:
        order: The order id.
    """
    RELEASE.wait(30)
    return f"{order}: shipped"


@pytest.fixture
def registry() -> Iterator[ToolRegistry]:
    RELEASE.clear()
    reg = ToolRegistry(timeout=0.3)
    reg.register(hang)
    yield reg
    RELEASE.set()  # the abandoned threads return now


def _said_timeout(text: str) -> bool:
    return "did not finish within 0.3 s" in text and "TIMEOUT" in text


def _call(order: str) -> dict[str, Any]:
    return {"name": "hang", "args": {"order": order}, "id": "call_1", "type": "tool_call"}


async def test_langchain_invoke(registry: ToolRegistry) -> None:
    (tool,) = to_langchain_tools(registry)
    with anyio.fail_after(10):
        message = await anyio.to_thread.run_sync(tool.invoke, _call("A-1"), abandon_on_cancel=True)
    assert message.status == "error" and _said_timeout(message.content)


async def test_agent_invoke(registry: ToolRegistry) -> None:
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "hang", "args": {"order": "A-2"}}]}, "It timed out."]
    )
    agent = build_agent(model, registry)
    with anyio.fail_after(10):
        state = await anyio.to_thread.run_sync(
            agent.invoke, {"messages": [("user", "where is A-2?")]}, abandon_on_cancel=True
        )
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert _said_timeout(str(message.content))
    assert state["messages"][-1].content == "It timed out."


async def test_tool_node_ainvoke(registry: ToolRegistry) -> None:
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(to_langchain_tools(registry)))
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    graph = builder.compile()
    state = MessagesState(messages=[AIMessage("", tool_calls=[_call("A-3")])])
    with anyio.fail_after(10):
        out = await graph.ainvoke(state)
    assert _said_timeout(str(out["messages"][-1].content))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_mcp_server(registry: ToolRegistry, mode: str) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(registry), mode=mode) as client:
            result = await client.call_tool("hang", {"order": "A-4"})
            again = await client.call_tool("hang", {"order": "A-5"})
    for each in (result, again):
        assert each.is_error
        (block,) = each.content
        assert isinstance(block, types.TextContent) and _said_timeout(block.text)
        assert (each.meta or {}).get(ERROR_META_KEY, {}).get("code") == "TIMEOUT"
