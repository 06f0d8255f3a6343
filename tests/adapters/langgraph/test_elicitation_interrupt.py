"""A question from a tool becomes a LangGraph interrupt: the run pauses with the question, the
application resumes with the answer, and the tool (local, or on a remote MCP server asked
through ``AskInCaller``) gets it. Also through our gateway: a remote question reaches the
gateway's own client."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from adapters.langgraph import build_agent
from adapters.mcp_client import AskInCaller, McpClientPool
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from tests.support import asking_server
from toolkit import ToolRegistry

ROOT = Path(__file__).resolve().parents[3]
CONFIG = {"thread_id": "t1"}


@pytest.fixture(scope="module")
def remote() -> Iterator[tuple[McpClientPool, ToolRegistry]]:
    """One server for the module: each test builds its own agent and finishes its own run."""
    server = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.support.asking_server:registry"],
        "cwd": str(ROOT),
        "env": {"PYTHONPATH": str(ROOT)},
    }
    with McpClientPool({"mcpServers": {"shop": server}}, elicitation=AskInCaller()) as pool:
        registry = ToolRegistry()
        pool.register_into_sync(registry)
        yield pool, registry


def _local() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(asking_server.reserve, name="shop_reserve")
    return registry


def _run(stub: OpenAIStub, registry: ToolRegistry, resume: Any) -> tuple[Any, dict[str, Any]]:
    stub.script(Turn(tool_calls=[Call("shop_reserve", {"sku": "B-7"})]), Turn(text="Done."))
    agent = build_agent(chat(stub), registry, checkpointer=InMemorySaver())
    config = {"configurable": CONFIG}
    first = agent.invoke({"messages": [("user", "reserve B-7")]}, config)
    (pending,) = first["__interrupt__"]
    return pending.value, agent.invoke(Command(resume=resume), config)


def _answer(state: dict[str, Any]) -> ToolMessage:
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    return message


@pytest.mark.parametrize("where", ["local", "remote"])
def test_the_question_pauses_the_run_and_the_answer_reaches_the_tool(
    where: str, stub: OpenAIStub, remote: tuple[McpClientPool, ToolRegistry]
) -> None:
    registry = _local() if where == "local" else remote[1]
    question, state = _run(stub, registry, {"action": "accept", "content": {"quantity": 3}})
    assert question["type"] == "elicitation" and question["tool"] == "shop_reserve"
    assert question["message"] == "How many of B-7 should I reserve?"
    assert question["schema"]["required"] == ["quantity"]
    assert _answer(state).text == "reserved 3 of B-7"
    assert state["messages"][-1].content == "Done."


def test_a_declined_question_is_the_tools_to_handle(
    stub: OpenAIStub, remote: tuple[McpClientPool, ToolRegistry]
) -> None:
    _question, state = _run(stub, remote[1], "decline")
    assert _answer(state).text == "nothing reserved (decline)"


def test_an_answer_that_does_not_fit_the_form_is_a_clear_error(
    stub: OpenAIStub, remote: tuple[McpClientPool, ToolRegistry]
) -> None:
    _question, state = _run(stub, remote[1], {"quantity": 0})
    answer = _answer(state)
    assert answer.status == "error"
    assert "does not fit the question's form" in answer.text and "quantity" in answer.text


def test_without_a_checkpointer_the_question_is_declined(
    stub: OpenAIStub, remote: tuple[McpClientPool, ToolRegistry]
) -> None:
    stub.script(Turn(tool_calls=[Call("shop_reserve", {"sku": "B-7"})]), Turn(text="Done."))
    state = build_agent(chat(stub), remote[1]).invoke({"messages": [("user", "reserve B-7")]})
    assert _answer(state).text == "nothing reserved (decline)"
