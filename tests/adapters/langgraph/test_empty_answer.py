"""No silent empty answer: a run the model ends with no text is asked again, then answered.

Driven by the real ``ChatOpenAI`` against the stub behaving as llama-cpp-python's
``chatml-function-calling`` format (text answers under ``tool_choice="auto"`` are ``''`` or a
bare ``functions.NAME:``, ``tool`` messages are never rendered), and by a scripted model.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import anyio
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import build_agent
from adapters.langgraph._empty_answer import ANSWER_NOW, fallback_answer, is_empty
from adapters.testing import Call, OpenAIStub, ScriptedChatModel, Turn
from tests.support.model_runs import desk_registry

LIST = Call("list_bookings", {"guest": "Ann Lee"})


@pytest.fixture
def server() -> Iterator[OpenAIStub]:
    with OpenAIStub(chat_format="chatml-function-calling") as stub:
        yield stub


def _model(stub: OpenAIStub) -> ChatOpenAI:
    return ChatOpenAI(base_url=stub.url, api_key="local", model="smol", max_retries=0)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "no answer" in r.getMessage()]


def test_an_empty_answer_is_asked_again_without_tools(
    server: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    _, registry = desk_registry()
    # The format turns the model's text into '' while tools are offered with tool_choice auto.
    server.script(Turn(tool_calls=[LIST]), Turn(text="Ann has B-1."), Turn(text="Ann has B-1."))
    with caplog.at_level(logging.WARNING, "adapters.langgraph"):
        state = build_agent(_model(server), registry).invoke(
            {"messages": [("user", "Bookings of Ann Lee?")]}
        )
    assert state["messages"][-1].text == "Ann has B-1."
    assert state["empty_answer"] == "retried"
    # the null-content refusal repeats one request; the second ask offers no tools
    assert server.tool_choices == ["auto", "auto", "auto", None]
    assert "tools" not in server.requests[-1]
    # The format hides the tool message; the closing request quotes what the tool returned.
    assert all(m["role"] != "tool" for m in server.visible_messages())
    closing = server.requests[-1]["messages"][-1]
    assert closing["role"] == "user" and closing["content"].startswith(ANSWER_NOW)
    assert 'list_bookings({"guest": "Ann Lee"}) returned: "[' in closing["content"]
    (warning,) = _warnings(caplog)
    assert "may not show the model the tool results" in warning


def test_the_bare_prefix_names_the_format_and_a_second_empty_answer_ends_with_the_fallback(
    server: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    _, registry = desk_registry()
    server.script(Turn(tool_calls=[LIST]), Turn(text="functions.list_bookings:"), Turn(text=" "))
    with caplog.at_level(logging.WARNING, "adapters.langgraph"):
        state = build_agent(_model(server), registry).invoke(
            {"messages": [("user", "Bookings of Ann Lee?")]}
        )
    answer = state["messages"][-1]
    assert state["empty_answer"] == "fallback"
    assert answer.response_metadata["empty_answer"] == "fallback"
    assert answer.text.startswith("I could not put the answer into words. What ran")
    assert '- list_bookings({"guest": "Ann Lee"}) returned: "[{' in answer.text
    assert "B-1" in answer.text
    (warning,) = _warnings(caplog)
    assert "'functions.list_bookings:'" in warning and "chatml-function-calling" in warning


def test_nothing_ran_says_so_and_a_new_turn_clears_the_key() -> None:
    _, registry = desk_registry()
    model = ScriptedChatModel(turns=["", "", "Hello."])
    agent = build_agent(model, registry, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    state = agent.invoke({"messages": [("user", "Hi")]}, config)
    assert state["empty_answer"] == "fallback"
    assert "no tool was run" in state["messages"][-1].text
    state = agent.invoke({"messages": [("user", "Hi again")]}, config)
    assert state["messages"][-1].text == "Hello." and state["empty_answer"] is None


def test_the_async_agent_asks_again_too(server: OpenAIStub) -> None:
    _, registry = desk_registry()
    server.script(Turn(text="Hi."), Turn(text="Hello, how can I help?"))
    agent = build_agent(_model(server), registry)

    async def main() -> dict[str, object]:
        return await agent.ainvoke({"messages": [("user", "Hi")]})

    state = anyio.run(main)
    assert state["messages"][-1].text == "Hello, how can I help?"
    assert state["empty_answer"] == "retried"


def test_the_action_protocol_answer_is_checked_the_same_way() -> None:
    _, registry = desk_registry()
    inner = ScriptedChatModel(turns=["", "Nothing to do."])
    state = build_agent(XmlToolCallingModel(inner), registry).invoke({"messages": [("user", "Hi")]})
    assert state["messages"][-1].text == "Nothing to do." and state["empty_answer"] == "retried"


def test_what_counts_as_empty() -> None:
    assert is_empty(AIMessage("")) and is_empty(AIMessage(" \n"))
    assert is_empty(AIMessage("functions.book_room:"))
    assert not is_empty(AIMessage("functions are fun."))
    assert not is_empty(AIMessage("", tool_calls=[{"name": "x", "args": {}, "id": "1"}]))
    assert "no tool was run" in fallback_answer([HumanMessage("Hi")])


def test_a_second_answer_that_only_echoes_the_request_ends_with_the_fallback(
    server: OpenAIStub,
) -> None:
    _, registry = desk_registry()
    # SmolLM2 copied the closing request, HTML-escaped as chatml-function-calling renders it.
    echo = "The tools returned:\n- list_bookings({&#34;guest&#34;: &#34;Ann Lee&#34;}) retur"
    server.script(Turn(tool_calls=[LIST]), Turn(text=""), Turn(text=echo))
    state = build_agent(_model(server), registry).invoke(
        {"messages": [("user", "Bookings of Ann Lee?")]}
    )
    assert state["empty_answer"] == "fallback"
    assert "&#34;" not in state["messages"][-1].text
