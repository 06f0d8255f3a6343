"""Runaway models against an agent's budget: every run ends within it, with a final answer.

The models are scripted over the local OpenAI-compatible server (real HTTP on 127.0.0.1): each
turn is computed from the request, so a runaway asks for tools as long as it is offered any.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel

from adapters.action_xml import XmlToolCallingModel
from adapters.langchain import to_langchain_tools
from adapters.langgraph import RunSummary, build_agent, graph_tool
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import CallNext, ErrorCode, ResultCache, RunBudget, ToolCall, ToolRegistry, ToolResult

FINAL = "Here is what I found so far."


def runaway(calls: Callable[[int], list[Call]]) -> Callable[[dict[str, Any]], Turn]:
    """A model that calls tools whenever it is offered any, and answers when it is not."""
    turns = iter(range(10_000))

    def turn(request: dict[str, Any]) -> Turn:
        if not request.get("tools"):
            return Turn(text=FINAL)
        return Turn(tool_calls=calls(next(turns)))

    return turn


def _script(stub: OpenAIStub, turn: Callable[[dict[str, Any]], Turn]) -> None:
    stub.script(*[turn] * 200)


def _codes(state: dict[str, Any]) -> Counter[str | None]:
    return Counter(entry["code"] for entry in state["tool_calls"])


def _ended_with_an_answer(state: dict[str, Any], stub: OpenAIStub) -> None:
    summary = RunSummary.from_state(state)
    assert summary.answer == FINAL
    assert "tools" not in stub.requests[-1]  # the last model call offered no tools


def test_the_same_call_forever_is_stopped_by_repeats_then_the_call_budget(
    registry: ToolRegistry, stub: OpenAIStub
) -> None:
    _script(stub, runaway(lambda _: [Call("get_bin", {"code": "B-1"})]))
    agent = build_agent(
        chat(stub), registry, max_iterations=100, budget=RunBudget(calls=6, repeats=2)
    )
    state = agent.invoke({"messages": [("user", "Check bin B-1.")]})
    assert _codes(state) == {None: 2, "REPEATED_CALL": 4}
    _ended_with_an_answer(state, stub)
    repeated = state["tool_calls"][2]["result"]
    assert "Its earlier result:" in repeated and "B-1" in repeated
    assert len(stub.requests) == 7  # six turns with one call each, then the tool-less answer
    prompt = stub.requests[-1]["messages"][0]["content"]
    assert "budget is used up (the limit of 6 tool calls)" in prompt


def test_two_calls_alternating_are_caught(registry: ToolRegistry, stub: OpenAIStub) -> None:
    codes = ["B-1", "B-2"]
    _script(stub, runaway(lambda i: [Call("get_bin", {"code": codes[i % 2]})]))
    agent = build_agent(chat(stub), registry, max_iterations=100, budget=RunBudget(repeats=3))
    state = asyncio.run(agent.ainvoke({"messages": [("user", "Compare B-1 and B-2.")]}))
    # Each of the two calls ran three times; the 7th call is the first refused, and every
    # refused call after it too; the budget has no call limit, so max_iterations ends it.
    assert _codes(state)[None] == 6 and _codes(state)["REPEATED_CALL"] > 0
    assert [e["code"] for e in state["tool_calls"][:7]] == [None] * 6 + ["REPEATED_CALL"]
    _ended_with_an_answer(state, stub)


def test_fifty_parallel_calls_in_one_turn_stop_at_the_budget(
    registry: ToolRegistry, stub: OpenAIStub
) -> None:
    _script(stub, runaway(lambda _: [Call("get_bin", {"code": f"B-{i}"}) for i in range(50)]))
    agent = build_agent(chat(stub), registry, budget=RunBudget(calls=10))
    state = asyncio.run(agent.ainvoke({"messages": [("user", "Check all bins.")]}))
    assert _codes(state) == {None: 10, "BUDGET_EXCEEDED": 40}
    _ended_with_an_answer(state, stub)
    assert len(stub.requests) == 2  # one tool round, then the answer


def test_model_calls_and_tokens_end_the_run_with_a_final_message(
    registry: ToolRegistry, stub: OpenAIStub
) -> None:
    _script(stub, runaway(lambda i: [Call("get_bin", {"code": f"B-{i}"})]))
    agent = build_agent(chat(stub), registry, budget=RunBudget(model_calls=3))
    state = agent.invoke({"messages": [("user", "Check bins.")]})
    assert len(stub.requests) == 3 and len(state["tool_calls"]) == 2
    _ended_with_an_answer(state, stub)

    _script(stub, runaway(lambda i: [Call("get_bin", {"code": f"C-{i}"})]))
    before = len(stub.requests)
    agent = build_agent(chat(stub), registry, budget=RunBudget(tokens=40))
    state = agent.invoke({"messages": [("user", "Check bins.")]})
    used = state["usage"]["total_tokens"]
    assert used >= 40 and len(stub.requests) - before < 10
    answer = RunSummary.from_state(state).answer
    assert (
        answer == "I stopped before finishing: the limit of 40 tokens for this request was reached."
    )


def test_the_same_loop_in_action_text_is_stopped(registry: ToolRegistry) -> None:
    call = "<ACTION>\n  <get_bin>\n    <code>B-7</code>\n  </get_bin>\n</ACTION>"

    class Looping(FakeListChatModel):
        def _call(self, messages: list[Any], *args: Any, **kwargs: Any) -> str:
            system = str(messages[0].content) if messages else ""
            return FINAL if "Do not call tools" in system else call

    model = XmlToolCallingModel(Looping(responses=["unused"]))
    agent = build_agent(model, registry, max_iterations=100, budget=RunBudget(calls=5, repeats=2))
    state = agent.invoke({"messages": [("user", "What is in B-7?")]})
    assert _codes(state) == {None: 2, "REPEATED_CALL": 3}
    assert RunSummary.from_state(state).answer == FINAL


def test_a_loop_inside_a_graph_tool_counts_against_the_outer_run(
    registry: ToolRegistry, stub: OpenAIStub
) -> None:
    with OpenAIStub() as inner_stub:
        _script(inner_stub, runaway(lambda i: [Call("get_bin", {"code": f"I-{i}"})]))
        inner = build_agent(chat(inner_stub), registry, max_iterations=100)
        skill = graph_tool(
            inner,
            name="survey",
            description="Survey the bins.",
            input_schema={"type": "object", "properties": {"messages": {"type": "array"}}},
            output_key="messages",
        )
        outer_registry = ToolRegistry()
        outer_registry.add(skill)
        _script(stub, runaway(lambda _: [Call("survey", {"messages": [["user", "survey"]]})]))
        agent = build_agent(chat(stub), outer_registry, budget=RunBudget(calls=8))
        state = agent.invoke({"messages": [("user", "Survey everything.")]})
        inner_requests = len(inner_stub.requests)
    # The outer call and seven inner ones ran; then the inner agent was stopped (its last
    # model call offered no tools), and so was the outer one.
    assert inner_requests < 12
    _ended_with_an_answer(state, stub)
    assert [e["tool"] for e in state["tool_calls"]] == ["survey"]


def test_langchain_tools_and_registry_middleware_share_the_run(registry: ToolRegistry) -> None:
    seen: list[str] = []

    class Note:
        inline = True

        async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            seen.append(call.name)
            return await call_next(call)

    registry.configure(middleware=[Note(), ResultCache()])
    (tool,) = [t for t in to_langchain_tools(registry) if t.name == "get_bin"]
    with registry.run(calls=3) as run:
        answers = [tool.invoke({"code": "B-1"}) for _ in range(4)]
    assert seen == ["get_bin"] * 3  # the fourth was refused before the registry's middleware
    assert run.stopped == "the limit of 3 tool calls" and "BUDGET_EXCEEDED" in answers[-1]
    assert registry.records[1].answered_by == "cache"


@pytest.mark.parametrize("budget", [RunBudget(per_tool={"get_bin": 1})])
def test_the_call_log_shows_the_stop(
    registry: ToolRegistry, stub: OpenAIStub, budget: RunBudget
) -> None:
    _script(stub, runaway(lambda i: [Call("get_bin", {"code": f"B-{i}"})]))
    state = build_agent(chat(stub), registry, budget=budget).invoke(
        {"messages": [("user", "Check bins.")]}
    )
    stop = state["tool_calls"][-1]
    assert stop["code"] == ErrorCode.BUDGET_EXCEEDED.value and stop["is_error"]
    assert "the limit of 1 calls of tool 'get_bin'" in stop["result"]
    assert registry.records[-1].answered_by == "budget"
    _ended_with_an_answer(state, stub)
