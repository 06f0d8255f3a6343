"""Fixed prompts run through agents over a real model server, and what came of each run.

Shared by the slow real-model test and ``bench/bench_local_model.py``. The tools are the four
public methods of an undecorated :class:`~tests.support.business.TravelDesk` (registered with
``scan(desk, public=True)``), six prompts each (:mod:`tests.support.model_cases`). A run is one
user prompt on a fresh desk holding three bookings; the registry's call records tell which
tools were called and with what arguments, and the final answer is read as its user meets it.
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
from tests.support.model_cases import CASES, QUICK, Case, exact_arguments, read_answer
from toolkit import CallRecord, ErrorCode, ToolRegistry

SYSTEM = "You are the assistant of a travel desk. Use the tools to do what the user asks."

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


__all__ = ["CASES", "QUICK", "SYSTEM", "Tally", "TimedTransport", "chat_model", "run_prompts"]


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
    """What came of the runs of one configuration.

    ``empty``: final answers with nothing to read; ``fallback``: runs our agent ended with its
    fallback answer (``empty_answer == "fallback"``), ``asked_again``: runs whose answer came
    from asking again without tools; ``raw_syntax``: tool-call syntax shown as the answer;
    ``prose_call``: an answer claiming an action while no tool ran; ``right_answer``: the right
    tool ran and the answer says what the prompt asked for.
    """

    name: str
    runs: int = 0
    completed: int = 0
    tool_called: int = 0
    correct_tool: int = 0
    valid_arguments: int = 0
    exact_arguments: int = 0
    crashes: int = 0
    empty: int = 0
    fallback: int = 0
    asked_again: int = 0
    raw_syntax: int = 0
    prose_call: int = 0
    right_answer: int = 0
    seconds: float = 0.0
    model_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    @property
    def library_share(self) -> float:
        """The part of the wall time not spent waiting for the model server."""
        return max(0.0, 1 - self.model_seconds / self.seconds) if self.seconds else 0.0

    def read(self, case: Case, state: Any, records: list[CallRecord]) -> None:
        """Count one finished run of ``case``."""
        mine = [r for r in records if r.tool == case.tool]
        self.tool_called += bool(records)
        self.correct_tool += bool(mine)
        self.valid_arguments += any(r.code not in _BAD_ARGUMENTS for r in mine)
        self.exact_arguments += any(exact_arguments(case, r.arguments) for r in mine)
        last = state["messages"][-1]
        if not isinstance(last, AIMessage):
            return
        self.completed += 1
        text = last.text
        self.answers.append(f"{case.prompt[:40]!r} -> {text[:100]!r}")
        outcome = state.get("empty_answer")
        self.fallback += outcome == "fallback"
        self.asked_again += outcome == "retried"
        ok = any(r.outcome == "ok" for r in mine)
        reading = read_answer(case, text, [r.tool for r in records], ok)
        self.empty += reading.empty
        self.raw_syntax += reading.raw_syntax
        self.prose_call += reading.prose_call
        self.right_answer += reading.right and outcome != "fallback"  # the agent's words


Agent = Callable[[BaseChatModel, ToolRegistry], Any]


def run_prompts(
    name: str,
    make_model: Callable[[TimedTransport], BaseChatModel],
    make_agent: Agent,
    cases: Sequence[Case] = CASES,
) -> Tally:
    """Run each case on a fresh desk with a fresh agent; count what happened."""
    tally = Tally(name)
    for case in cases:
        _, registry = desk_registry()
        records: list[CallRecord] = []
        registry.subscribe(records.append)
        transport = TimedTransport()
        agent = make_agent(make_model(transport), registry)
        tally.runs += 1
        started = time.perf_counter()
        try:
            state = agent.invoke({"messages": [("user", case.prompt)]})
        except Exception as exc:  # counted, never raised: a crash is what is measured
            tally.crashes += 1
            tally.errors.append(f"{case.prompt[:30]}: {type(exc).__name__}: {str(exc)[:120]}")
        else:
            tally.read(case, state, records)
        tally.seconds += time.perf_counter() - started
        tally.model_seconds += transport.seconds
    return tally
