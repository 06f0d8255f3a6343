"""A model turn's tool calls run at once under ``agent.invoke`` as under ``agent.ainvoke``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.langgraph import build_agent
from tests.adapters.langgraph.conftest import chat
from tests.support.openai_stub import Call, OpenAIStub, Turn
from toolkit import ToolRegistry, mcp_tool

CALLS = 10


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _registry(together: threading.Barrier) -> ToolRegistry:
    @mcp_tool
    def wait_for_all(n: int) -> int:
        """Wait until every call of the turn is running.

        Args:
            n: Which call this is.
        """
        together.wait()  # raises BrokenBarrierError if the calls do not overlap
        return n

    registry = ToolRegistry()
    registry.register(wait_for_all)
    return registry


def _script(stub: OpenAIStub) -> None:
    stub.script(
        Turn(tool_calls=[Call("wait_for_all", {"n": i}) for i in range(CALLS)]),
        Turn(text="All done."),
    )


def _check(state: dict[str, Any]) -> None:
    answers = [m for m in state["messages"] if m.type == "tool"]
    assert sorted(m.content for m in answers) == sorted(str(i) for i in range(CALLS))
    assert all(m.status == "success" for m in answers)


def test_invoke_runs_ten_sync_calls_together(stub: OpenAIStub) -> None:
    _script(stub)
    agent = build_agent(chat(stub), _registry(threading.Barrier(CALLS, timeout=20)))
    _check(agent.invoke({"messages": [("user", "go")]}))


@pytest.mark.anyio
async def test_ainvoke_runs_ten_sync_calls_together(stub: OpenAIStub) -> None:
    _script(stub)
    agent = build_agent(chat(stub), _registry(threading.Barrier(CALLS, timeout=20)))
    _check(await agent.ainvoke({"messages": [("user", "go")]}))
