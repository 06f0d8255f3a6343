"""One middleware, every sink: the registry's and the call's middleware answer the same way from
the LangGraph tool node and single turn, LangChain tools, the MCP server and the CLI, and a
middleware that awaits real I/O works under each sync entry point."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from mcp import Client
from typer.testing import CliRunner

from adapters.cli import app
from adapters.langchain import to_langchain_tools
from adapters.langgraph import single_turn_node, tool_node
from adapters.mcp_server import build_server
from adapters.testing import ScriptedChatModel
from toolkit import CallNext, CallOptions, ToolCall, ToolRegistry, ToolResult, mcp_tool

ANSWER = "answered by the middleware"


@mcp_tool
def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return text


class Answers:
    """Answers every call itself, after awaiting real waiting (so: not inline)."""

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        await asyncio.sleep(0.001)
        return ToolResult(content=ANSWER)


ANSWERING = CallOptions(middleware=[Answers()])


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(echo)
    return reg


def test_the_tool_node_and_a_single_turn(registry: ToolRegistry) -> None:
    node = tool_node(registry, "echo", {"text": "hi"}, options=ANSWERING)
    result = node.invoke({}, {})["tool_result"]
    assert result.content == ANSWER and result.record.answered_by == "Answers"
    turn = {"tool_calls": [{"name": "echo", "args": {"text": "hi"}}]}
    builder = StateGraph(MessagesState)
    builder.add_node(
        "turn", single_turn_node(ScriptedChatModel(turns=[turn]), registry, options=ANSWERING)
    )
    builder.add_edge(START, "turn")
    messages = builder.compile().invoke(MessagesState(messages=[HumanMessage("go")]))["messages"]
    assert [m.content for m in messages if isinstance(m, ToolMessage)] == [ANSWER]


def test_langchain_tools_sync_and_async(registry: ToolRegistry) -> None:
    registry.configure(middleware=[Answers()])
    (tool,) = to_langchain_tools(registry)
    assert tool.invoke({"text": "hi"}) == ANSWER
    assert asyncio.run(tool.ainvoke({"text": "hi"})) == ANSWER


@pytest.mark.anyio
async def test_the_mcp_server(registry: ToolRegistry) -> None:
    async with Client(build_server(registry, options=ANSWERING), mode="legacy") as client:
        answered = await client.call_tool("echo", {"text": "hi"})
    assert not answered.is_error and ANSWER in str(answered.content)


def test_the_cli_call_uses_the_registry_middleware(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    (tmp_path / "answered_tools.py").write_text(
        textwrap.dedent(
            """
            from tests.parity.test_middleware_sinks import Answers, echo
            from toolkit import ToolRegistry

            registry = ToolRegistry(middleware=[Answers()])
            registry.register(echo)
            """
        )
    )
    try:
        result = CliRunner().invoke(
            app, ["call", "answered_tools:registry", "echo", '{"text": "hi"}']
        )
    finally:
        sys.modules.pop("answered_tools", None)
    assert result.exit_code == 0, result.output
    assert ANSWER in result.stdout
