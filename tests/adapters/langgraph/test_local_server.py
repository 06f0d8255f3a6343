"""``build_agent`` over an OpenAI-compatible local server, driven by the real ``ChatOpenAI``.

The stub in local-server mode behaves as llama.cpp's server with a function-calling chat
format: tools are shown only when ``tool_choice`` is sent, and an assistant turn whose content
is ``null`` (what ``ChatOpenAI`` sends for a tool-call turn without text) is answered HTTP 500.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import anyio
import openai
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_openai import ChatOpenAI

from adapters.langgraph import build_agent
from adapters.testing import Call, OpenAIStub, Turn
from tests.support.business import TravelDesk
from toolkit import ToolRegistry

NULL_REFUSED = (
    "messages.1.content: Input should be a valid string (ChatCompletionRequestAssistantMessage)"
)


@pytest.fixture
def local() -> Iterator[OpenAIStub]:
    with OpenAIStub(local_server=True) as server:
        yield server


def _desk() -> tuple[TravelDesk, ToolRegistry]:
    desk = TravelDesk()
    registry = ToolRegistry()
    registry.scan(desk, public=True)
    return desk, registry


def _model(stub: OpenAIStub, retries: int = 0) -> ChatOpenAI:
    return ChatOpenAI(base_url=stub.url, api_key="local", model="smol", max_retries=retries)


def _assistant_contents(body: dict[str, object]) -> list[object]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [m.get("content") for m in messages if m.get("role") == "assistant"]


BOOK = Call("book_room", {"guest": "Ann Lee", "nights": 2, "hotel": None})
SEND = Call("send_message", {"recipient": "ann@example.org", "body": "Booked for 2 nights."})


def test_the_agent_shows_tools_and_survives_the_null_content_refusal(
    local: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    desk, registry = _desk()
    local.script(Turn(tool_calls=[BOOK]), Turn(tool_calls=[SEND]), Turn(text="All done."))
    agent = build_agent(_model(local, retries=2), registry)  # the client's own retries too
    with caplog.at_level(logging.WARNING, "adapters.langgraph"):
        state = agent.invoke({"messages": [("user", "Book Ann two nights and tell her.")]})
    # The tools were shown (tool_choice sent every time) and called.
    assert set(local.tool_choices) == {"auto"}
    assert desk.bookings["B-1"]["hotel"] == "Harbour Inn" and len(desk.outbox) == 1
    assert state["messages"][-1].text == "All done."
    tool_answers = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert [m.status for m in tool_answers] == ["success", "success"]
    # One refusal (the client retried it twice itself), then one repaired request; the next
    # request is sent repaired from the start.
    assert local.rejections == [NULL_REFUSED] * 3
    assert [_assistant_contents(b) for b in local.requests[-2:]] == [[" "], [" ", " "]]
    (line,) = [r.getMessage() for r in caplog.records if "refused the conversation" in r.message]
    assert "HTTP 500" in line and "content null" in line
    # The conversation kept by the agent is not rewritten.
    assert [m.content for m in state["messages"] if isinstance(m, AIMessage)][:2] == ["", ""]


def test_the_async_agent_repairs_the_same_way(local: OpenAIStub) -> None:
    desk, registry = _desk()
    local.script(Turn(tool_calls=[BOOK]), Turn(text="Booked."))
    agent = build_agent(_model(local), registry)

    async def run() -> dict[str, object]:
        return await agent.ainvoke({"messages": [("user", "Book Ann two nights.")]})

    state = anyio.run(run)
    assert len(desk) == 1 and local.rejections == [NULL_REFUSED]
    messages = state["messages"]
    assert isinstance(messages, list) and messages[-1].text == "Booked."


def test_without_tool_choice_a_local_server_hides_the_tools(local: OpenAIStub) -> None:
    # What a bare bind_tools gets from such a server: the scripted call comes back as text.
    local.script(Turn(text="I would book it.", tool_calls=[BOOK]))
    bare = _model(local).bind_tools(
        [{"type": "function", "function": {"name": "book_room", "parameters": {"type": "object"}}}]
    )
    answer = bare.invoke("Book Ann two nights.")
    assert isinstance(answer, AIMessage) and not answer.tool_calls
    assert answer.text == "I would book it." and local.tool_choices == [None]


def test_openai_itself_gets_what_it_got_before(stub: OpenAIStub) -> None:
    _, registry = _desk()
    stub.script(Turn(tool_calls=[SEND]), Turn(text="Sent."))
    state = build_agent(_model(stub), registry).invoke({"messages": [("user", "Tell Ann.")]})
    assert state["messages"][-1].text == "Sent."
    assert stub.tool_choices == ["auto", "auto"]  # OpenAI's default, now explicit
    assert _assistant_contents(stub.requests[-1]) == [None] and stub.rejections == []


def test_other_failures_are_not_retried(local: OpenAIStub) -> None:
    _, registry = _desk()
    local.script(Turn(tool_calls=[SEND]))  # no reply left after the tool call: HTTP 400
    agent = build_agent(_model(local), registry)
    with pytest.raises(openai.BadRequestError, match="no reply left"):
        agent.invoke({"messages": [("user", "Tell Ann.")]})
    # The refused null content was repaired once; the 400 that followed is the caller's.
    assert local.rejections[0] == NULL_REFUSED
    assert "no reply left" in local.rejections[-1] and len(local.rejections) == 2
    assert len(local.requests) == 3
