"""Fixed prompts run through agents over a real model server, and what came of each run.

Shared by the slow real-model test and ``bench/bench_local_model.py``. The tools are the four
public methods of an undecorated :class:`~tests.support.business.TravelDesk` (registered with
``scan(desk, public=True)``), six prompts each. A run is one user prompt on a fresh desk holding
three bookings; the registry's call records tell which tools were called and whether their
arguments were valid.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI

from tests.support.business import TravelDesk
from toolkit import CallRecord, ErrorCode, ToolRegistry

SYSTEM = "You are the assistant of a travel desk. Use the tools to do what the user asks."

PROMPTS: list[tuple[str, str]] = [
    ("send_message", "Send a message to ann@example.org saying her room is ready."),
    ("send_message", "Email bo@example.org: your booking is confirmed."),
    ("send_message", "Tell cy@example.org by message that breakfast starts at 7."),
    ("send_message", "Send an urgent message to dee@example.org: the flight is delayed."),
    ("send_message", "Message eve@example.org that check-out is at 11."),
    ("send_message", "Please send fay@example.org a note: thank you for staying with us."),
    ("book_room", "Book a room for Ann Lee for 2 nights."),
    ("book_room", "Book 3 nights at Dune Lodge for Bo Chen."),
    ("book_room", "Reserve a hotel room for Cy Park, 1 night, without breakfast."),
    ("book_room", "I need a room for Dee Rao for 4 nights."),
    ("book_room", "Book Eve Moss into the Harbour Inn for 2 nights."),
    ("book_room", "Make a booking for Fay Lin, 5 nights."),
    ("list_bookings", "List all bookings."),
    ("list_bookings", "Show me the bookings of Ann Lee."),
    ("list_bookings", "What bookings do we have?"),
    ("list_bookings", "Show the last 3 bookings."),
    ("list_bookings", "Which bookings does Bo Chen have?"),
    ("list_bookings", "List bookings, at most 5."),
    ("cancel_booking", "Cancel booking B-1."),
    ("cancel_booking", "Please cancel the booking B-2 because the guest is ill."),
    ("cancel_booking", "Cancel B-3."),
    ("cancel_booking", "The customer wants booking B-1 cancelled."),
    ("cancel_booking", "Cancel booking B-2, reason: double booking."),
    ("cancel_booking", "Remove booking B-3."),
]

#: One prompt per tool, for quick runs.
QUICK = [PROMPTS[0], PROMPTS[6], PROMPTS[12], PROMPTS[18]]

_BAD_ARGUMENTS = (ErrorCode.INVALID_PARAMS, ErrorCode.PARSE_ERROR)


class TimedTransport(httpx.HTTPTransport):
    """An HTTP transport that adds up the time spent waiting for the model server."""

    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = super().handle_request(request)
        response.read()
        self.seconds += time.perf_counter() - started
        return response


def chat_model(url: str, transport: TimedTransport, max_tokens: int = 96) -> ChatOpenAI:
    """``ChatOpenAI`` for the local server: greedy, capped as the server understands it."""
    return ChatOpenAI(
        base_url=url,
        api_key="local",
        model="smollm2",
        temperature=0,
        max_retries=0,
        timeout=300,
        max_tokens=max_tokens,
        extra_body={"max_tokens": max_tokens},  # llama.cpp ignores max_completion_tokens
        http_client=httpx.Client(transport=transport, timeout=300),
    )


def desk_registry() -> tuple[TravelDesk, ToolRegistry]:
    """A desk holding bookings B-1..B-3, its public methods registered as tools."""
    desk = TravelDesk()
    for guest in ("Ann Lee", "Bo Chen", "Cy Park"):
        desk.book_room(guest, 2)
    registry = ToolRegistry()
    registry.scan(desk, public=True)
    return desk, registry


@dataclass
class Tally:
    """What came of the runs of one configuration."""

    name: str
    runs: int = 0
    completed: int = 0
    tool_called: int = 0
    correct_tool: int = 0
    valid_arguments: int = 0
    crashes: int = 0
    raw_action_shown: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def library_share(self) -> float:
        """The part of the wall time not spent waiting for the model server."""
        return max(0.0, 1 - self.model_seconds / self.seconds) if self.seconds else 0.0


Agent = Callable[[BaseChatModel, ToolRegistry], Any]


def run_prompts(
    name: str,
    make_model: Callable[[TimedTransport], BaseChatModel],
    make_agent: Agent,
    prompts: Sequence[tuple[str, str]] = PROMPTS,
) -> Tally:
    """Run each prompt on a fresh desk with a fresh agent; count what happened."""
    tally = Tally(name)
    for expected, prompt in prompts:
        _, registry = desk_registry()
        records: list[CallRecord] = []
        registry.subscribe(records.append)
        transport = TimedTransport()
        agent = make_agent(make_model(transport), registry)
        tally.runs += 1
        started = time.perf_counter()
        try:
            state = agent.invoke({"messages": [("user", prompt)]})
        except Exception as exc:  # counted, never raised: a crash is what is measured
            tally.crashes += 1
            tally.errors.append(f"{prompt[:30]}: {type(exc).__name__}: {str(exc)[:120]}")
        else:
            last = state["messages"][-1]
            if isinstance(last, AIMessage):
                tally.completed += 1
                tally.raw_action_shown += "<ACTION" in last.text
        tally.seconds += time.perf_counter() - started
        tally.model_seconds += transport.seconds
        mine = [r for r in records if r.tool == expected]
        tally.tool_called += bool(records)
        tally.correct_tool += bool(mine)
        tally.valid_arguments += any(r.code not in _BAD_ARGUMENTS for r in mine)
    return tally
