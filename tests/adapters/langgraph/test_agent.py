"""build_agent against the real ChatOpenAI talking to the validating OpenAI stub."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from adapters.langchain.approval import NOT_ASKED
from adapters.langgraph import RunSummary, build_agent
from adapters.testing import Call, OpenAIStub, ScriptedChatModel, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import CallOptions, ToolRegistry, mcp_tool


def _tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def test_error_mid_run_reaches_the_model_which_recovers(stub: OpenAIStub, registry) -> None:
    stub.script(
        Turn(tool_calls=[Call("get_bin", {"code": "B-404"})]),
        Turn(tool_calls=[Call("get_bin", {"code": "B-1"})]),
        Turn(text="Bin B-1 holds 3 items."),
    )
    state = build_agent(chat(stub), registry).invoke({"messages": [("user", "bin?")]})

    assert stub.rejections == []
    second = stub.requests[1]["messages"]
    error_text = next(m["content"] for m in second if m["role"] == "tool")
    assert error_text.startswith("Error [EXECUTION_ERROR]") and "list_bins" in error_text
    log = state["tool_calls"]
    assert [(e["iteration"], e["is_error"], e["code"]) for e in log] == [
        (1, True, "EXECUTION_ERROR"),
        (2, False, None),
    ]
    assert state["iterations"] == 3  # model calls: two that asked for tools, one answer
    assert state["usage"] == {"input_tokens": 30, "output_tokens": 15, "total_tokens": 45}
    assert RunSummary.from_state(state).answer == "Bin B-1 holds 3 items."


@pytest.mark.anyio
async def test_three_parallel_calls_one_failing_streaming(stub: OpenAIStub, registry) -> None:
    stub.script(
        Turn(
            tool_calls=[
                Call("get_bin", {"code": "B-1"}),
                Call("get_bin", {"code": "B-404"}),
                Call("get_bin", {"code": "B-2"}),
            ]
        ),
        Turn(text="Two bins found."),
    )
    agent = build_agent(chat(stub, streaming=True), registry)
    state = await agent.ainvoke({"messages": [("user", "bins?")]})

    assert stub.rejections == [] and stub.requests[0]["stream"] is True
    answers = _tool_messages(state)
    assert len(answers) == 3
    assert sorted(m.status for m in answers) == ["error", "success", "success"]
    calls = state["messages"][1].tool_calls
    assert {m.tool_call_id for m in answers} == {c["id"] for c in calls}
    assert state["messages"][-1].content == "Two bins found."
    assert state["usage"]["total_tokens"] == 30


def test_max_iterations_ends_with_a_tool_less_answer(stub: OpenAIStub, registry) -> None:
    def never_stops(request: dict[str, Any]) -> Turn:
        if request.get("tools"):
            return Turn(tool_calls=[Call("get_bin", {"code": "B-1"})])
        return Turn(text="I could not finish; B-1 has 3 items.")

    stub.script(*[never_stops] * 4)
    state = build_agent(chat(stub), registry, max_iterations=3).invoke(
        {"messages": [("user", "loop")]}
    )

    assert [bool(r.get("tools")) for r in stub.requests] == [True, True, True, False]
    assert "Do not call tools" in stub.requests[-1]["messages"][0]["content"]
    assert state["iterations"] == 4 and len(state["tool_calls"]) == 3
    assert state["messages"][-1].content == "I could not finish; B-1 has 3 items."
    assert stub.rejections == []


def test_unknown_tool_name_lists_the_valid_ones(registry) -> None:
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "get_bins", "args": {"code": "B-1"}}]}, "ok"],
        allow_unbound=True,
    )
    state = build_agent(model, registry).invoke({"messages": [("user", "x")]})
    (answer,) = _tool_messages(state)
    assert answer.status == "error"
    assert "TOOL_NOT_FOUND" in answer.text and "get_bin" in answer.text
    assert state["tool_calls"][0]["code"] == "TOOL_NOT_FOUND"


def _approval_run(stub: OpenAIStub, registry: ToolRegistry, resume: Any) -> dict[str, Any]:
    stub.script(
        Turn(tool_calls=[Call("delete_bin", {"code": "B-1"}), Call("get_bin", {"code": "B-2"})]),
        Turn(text="Done."),
    )
    agent = build_agent(chat(stub), registry, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    first = agent.invoke({"messages": [("user", "delete B-1")]}, config)
    (pending,) = first["__interrupt__"]
    assert pending.value["tool"] == "delete_bin"
    assert pending.value["arguments"] == {"code": "B-1"}
    assert len(stub.requests) == 1
    return agent.invoke(Command(resume=resume), config)


def test_approval_approve_runs_the_call_once(stub: OpenAIStub, registry) -> None:
    runs: list[str] = []
    registry.subscribe(
        lambda r: runs.append(f"{r.tool}:{r.decision}") if r.outcome != "raised" else None
    )
    state = _approval_run(stub, registry, "approve")
    texts = {m.name: m.text for m in _tool_messages(state)}
    assert texts["delete_bin"] == "deleted B-1"
    assert sorted(runs) == ["delete_bin:approved", "get_bin:allow"]  # the sibling ran once
    assert stub.rejections == []


def test_approval_reject_reaches_the_model_as_denied(stub: OpenAIStub, registry) -> None:
    state = _approval_run(stub, registry, {"action": "reject", "reason": "B-1 is in use"})
    texts = {m.name: m.text for m in _tool_messages(state)}
    assert (
        texts["delete_bin"].startswith("Error [DENIED]") and "B-1 is in use" in texts["delete_bin"]
    )
    entry = next(e for e in state["tool_calls"] if e["tool"] == "delete_bin")
    assert (entry["code"], entry["decision"]) == ("DENIED", "rejected")


@pytest.mark.parametrize("resume", ["unasked", {"action": "unasked"}])
def test_approval_nobody_could_answer_is_not_a_rejection(
    stub: OpenAIStub, registry, resume: Any
) -> None:
    state = _approval_run(stub, registry, resume)
    texts = {m.name: m.text for m in _tool_messages(state)}
    assert texts["delete_bin"].startswith("Error [DENIED]") and NOT_ASKED in texts["delete_bin"]
    assert "rejected" not in texts["delete_bin"]
    entry = next(e for e in state["tool_calls"] if e["tool"] == "delete_bin")
    assert (entry["code"], entry["decision"]) == ("DENIED", "deny")


def test_approval_edit_runs_with_new_arguments(stub: OpenAIStub, registry) -> None:
    state = _approval_run(stub, registry, {"action": "edit", "arguments": {"code": "B-9"}})
    texts = {m.name: m.text for m in _tool_messages(state)}
    assert texts["delete_bin"] == "deleted B-9"
    entry = next(e for e in state["tool_calls"] if e["tool"] == "delete_bin")
    assert entry["decision"] == "edited"


def test_policy_passed_to_build_agent_decides(stub: OpenAIStub, registry) -> None:
    stub.script(Turn(tool_calls=[Call("get_bin", {"code": "B-1"})]), Turn(text="ok"))
    # A policy denying every call would also hide every tool (test_per_run_tools.py): this
    # one judges the arguments, so the tool is still offered and its call denied.
    deny = CallOptions(
        policy=lambda request: "deny" if request.arguments.get("code") == "B-1" else "allow"
    )
    agent = build_agent(chat(stub), registry, options=deny)
    state = agent.invoke({"messages": [("user", "x")]})
    assert state["tool_calls"][0]["code"] == "DENIED"


def test_injected_state_and_context_never_come_from_the_model(stub: OpenAIStub, registry) -> None:
    stub.script(
        Turn(tool_calls=[Call("whoami", {"note": "hi"})]),
        Turn(tool_calls=[Call("whoami", {"note": "again", "user": "mallory"})]),
        Turn(text="ok"),
    )
    agent = build_agent(chat(stub), registry, context_keys={"tenant": "tenant_id"})

    state = agent.invoke(
        {"messages": [("user", "who?")], "user": "ann"},  # type: ignore[typeddict-unknown-key]
        {"configurable": {"tenant_id": "acme", "secret": "nope"}},
    )
    params = stub.requests[0]["tools"][2]["function"]["parameters"]
    assert list(params["properties"]) == ["note"]
    first, second = _tool_messages(state)
    assert first.text == "hi: user=None tenant=acme"
    assert second.status == "error" and "user" in second.text


def test_ten_calls_of_one_turn_run_concurrently() -> None:
    """All ten calls of a turn are running at once: each waits for the others to start.

    Run one after another, the first call would wait in vain and fail (no wall-clock limit
    to flake on a busy machine; timings live in bench/bench_langgraph.py).
    """
    import asyncio
    import threading

    barrier = threading.Barrier(10, timeout=20)
    started: list[int] = []

    @mcp_tool
    async def meet_async(i: int) -> int:
        """Wait until all ten calls have started."""
        started.append(i)
        async with asyncio.timeout(20):
            while len(started) % 10:
                await asyncio.sleep(0.005)
        return i

    @mcp_tool
    def meet_sync(i: int) -> int:
        """Block until all ten calls have started."""
        barrier.wait()
        return i

    for name in ("meet_async", "meet_sync"):
        calls = [{"name": name, "args": {"i": i}} for i in range(10)]
        model = ScriptedChatModel(turns=[{"tool_calls": calls}, "done"])
        agent = build_agent(model, [meet_async, meet_sync])
        state = asyncio.run(agent.ainvoke({"messages": [("user", "go")]}))
        answers = _tool_messages(state)
        assert [m.status for m in answers] == ["success"] * 10, (name, answers)
