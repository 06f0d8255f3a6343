"""The system prompt filled per run from state and context; what the model reads of a thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, trim_messages
from langgraph.checkpoint.memory import InMemorySaver

from adapters.langgraph import PromptValueMissing, build_agent
from adapters.testing import OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import ErrorCode, mcp_tool


@mcp_tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def _system(request: dict[str, Any]) -> str:
    first = request["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


@dataclass
class Caller:
    tenant: str


def test_names_are_filled_from_context_configurable_and_state(stub: OpenAIStub) -> None:
    stub.script(Turn(text="ok"), Turn(text="ok"), Turn(text="ok"))
    agent = build_agent(
        chat(stub), [ping], system_prompt='Tenant {tenant}. Reply as JSON {"a": 1}, {{literal}}.'
    )
    agent.invoke({"messages": [("user", "hi")]}, context={"tenant": "acme"})
    agent.invoke({"messages": [("user", "hi")]}, context=Caller("globex"))
    agent.invoke({"messages": [("user", "hi")]}, {"configurable": {"tenant": "initech"}})
    assert [_system(r) for r in stub.requests] == [
        f'Tenant {name}. Reply as JSON {{"a": 1}}, {{literal}}.'
        for name in ("acme", "globex", "initech")
    ]


def test_state_values_fill_the_prompt(stub: OpenAIStub) -> None:
    stub.script(Turn(text="ok"))
    agent = build_agent(chat(stub), [ping], system_prompt="Turn budget left: {iterations}")
    agent.invoke({"messages": [("user", "hi")], "iterations": 0})
    assert _system(stub.requests[0]) == "Turn budget left: 0"


def test_a_missing_name_stops_the_run_saying_where_it_looked(stub: OpenAIStub) -> None:
    agent = build_agent(chat(stub), [ping], system_prompt="Tenant {tenant}")
    with pytest.raises(PromptValueMissing) as caught:
        agent.invoke({"messages": [("user", "hi")]})
    assert caught.value.name == "tenant" and caught.value.code == ErrorCode.NOT_FOUND
    assert "context=" in str(caught.value) and "configurable" in str(caught.value)
    assert stub.requests == []


def test_a_window_keeps_what_the_model_reads_short(stub: OpenAIStub) -> None:
    def last_two_exchanges(messages: list[BaseMessage]) -> list[BaseMessage]:
        return trim_messages(
            messages, max_tokens=4, token_counter=len, strategy="last", start_on="human"
        )

    stub.script(*[Turn(text=f"answer {i}") for i in range(4)])
    agent = build_agent(chat(stub), [ping], window=last_two_exchanges, checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "long"}}
    for i in range(4):
        state = agent.invoke({"messages": [("user", f"question {i}")]}, thread)

    assert len(state["messages"]) == 8  # the thread itself is whole
    sent = [m["content"] for m in stub.requests[-1]["messages"]]
    assert sent == ["question 2", "answer 2", "question 3"]
