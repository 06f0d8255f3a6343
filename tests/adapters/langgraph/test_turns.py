"""Multi-turn agents, tools that change after build, and approval without a checkpointer.

Every test drives the real ChatOpenAI against the validating OpenAI stub, which answers an
empty ``tools`` array with HTTP 400 as the OpenAI API does.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from adapters.langchain.approval import NOT_ASKED, no_checkpointer_reason
from adapters.langgraph import RunSummary, build_agent
from tests.adapters.langgraph.conftest import chat, get_bin
from tests.support.openai_stub import Call, OpenAIStub, Turn
from toolkit import ToolRegistry, mcp_tool


@mcp_tool(read_only=True)
def count_items(code: str) -> int:
    """Count the items in a bin.

    Args:
        code: The bin code.
    """
    return len(code)


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def test_second_turn_gets_its_own_iterations_log_and_usage(stub: OpenAIStub, registry) -> None:
    stub.script(
        Turn(tool_calls=[Call("get_bin", {"code": "B-1"})]),
        Turn(tool_calls=[Call("get_bin", {"code": "B-2"})]),
        Turn(text="B-1 and B-2 hold 3 items each."),
        Turn(tool_calls=[Call("get_bin", {"code": "B-3"})]),
        Turn(text="B-3 holds 3 items.", prompt_tokens=7, completion_tokens=2),
    )
    agent = build_agent(chat(stub), registry, max_iterations=2, checkpointer=InMemorySaver())
    first = agent.invoke({"messages": [("user", "B-1 and B-2?")]}, _thread("t"))
    assert first["iterations"] == 3 and len(first["tool_calls"]) == 2
    assert first["usage"]["total_tokens"] == 45

    second = agent.invoke({"messages": [("user", "and B-3?")]}, _thread("t"))

    assert stub.rejections == []
    # the first turn used up max_iterations (its last call had no tools); the second starts over
    assert [bool(r.get("tools")) for r in stub.requests] == [True, True, False, True, True]
    assert second["iterations"] == 2  # one call asked for a tool, the next answered
    assert [(e["iteration"], e["arguments"]) for e in second["tool_calls"]] == [
        (1, {"code": "B-3"})
    ]
    assert second["usage"] == {"input_tokens": 17, "output_tokens": 7, "total_tokens": 24}
    assert RunSummary.from_state(second).answer == "B-3 holds 3 items."
    # the conversation itself carries over: the model read the first turn
    assert "B-1 and B-2?" in str(stub.requests[-1]["messages"])


def test_empty_registry_never_sends_an_empty_tool_list(stub: OpenAIStub) -> None:
    stub.script(Turn(text="I have no tools; here is what I know."))
    state = build_agent(chat(stub), ToolRegistry()).invoke({"messages": [("user", "hi")]})
    assert stub.rejections == []
    assert "tools" not in stub.requests[0]
    assert state["messages"][-1].content == "I have no tools; here is what I know."
    assert state["iterations"] == 1 and state["tool_calls"] == []


def test_tools_added_and_removed_after_build_reach_the_next_model_call(stub: OpenAIStub) -> None:
    registry = ToolRegistry()
    agent = build_agent(chat(stub), registry, checkpointer=InMemorySaver())
    stub.script(Turn(text="No tools yet."))
    agent.invoke({"messages": [("user", "hi")]}, _thread("t"))

    registry.register(get_bin)
    registry.register(count_items)
    stub.script(Turn(tool_calls=[Call("count_items", {"code": "B-12"})]), Turn(text="4 items."))
    state = agent.invoke({"messages": [("user", "count B-12")]}, _thread("t"))
    assert _tool_names(stub.requests[1]) == ["get_bin", "count_items"]
    assert [m.text for m in state["messages"] if isinstance(m, ToolMessage)][-1] == "4"

    registry.remove("count_items")
    stub.script(Turn(tool_calls=[Call("count_items", {"code": "B-1"})]), Turn(text="Gone."))
    state = agent.invoke({"messages": [("user", "count B-1")]}, _thread("t"))
    assert _tool_names(stub.requests[3]) == ["get_bin"]
    assert stub.rejections == []


def test_approval_without_checkpointer_tells_the_model_no_one_was_asked(
    stub: OpenAIStub, registry, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []
    registry.subscribe(lambda r: ran.append(f"{r.tool}:{r.decision}"))
    stub.script(
        Turn(tool_calls=[Call("delete_bin", {"code": "B-1"}), Call("get_bin", {"code": "B-2"})]),
        Turn(text="I could not delete B-1 without approval."),
    )
    state = build_agent(chat(stub), registry).invoke({"messages": [("user", "delete B-1")]})

    assert "__interrupt__" not in state
    assert stub.rejections == []  # every tool call got its answer before the next request
    texts = {m.name: m.text for m in state["messages"] if isinstance(m, ToolMessage)}
    assert texts["delete_bin"].startswith("Error [DENIED]")
    # The model hears what happened and what it can do; the fix is the developer's, in the log.
    assert NOT_ASKED in texts["delete_bin"]
    assert "rejected" not in texts["delete_bin"] and "checkpointer" not in texts["delete_bin"]
    warned = [r for r in caplog.records if r.name == "adapters.langchain"]
    assert [r.levelname for r in warned] == ["WARNING"]
    assert no_checkpointer_reason("delete_bin") in warned[0].getMessage()
    assert "B-2" in texts["get_bin"]
    entry = next(e for e in state["tool_calls"] if e["tool"] == "delete_bin")
    assert (entry["code"], entry["decision"]) == ("DENIED", "deny")
    assert sorted(ran) == ["delete_bin:deny", "get_bin:allow"]
    assert state["messages"][-1].content == "I could not delete B-1 without approval."


def test_plain_tool_node_without_checkpointer_denies_instead_of_hanging(registry) -> None:
    from langchain_core.messages import AIMessage
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    from adapters.langchain import to_langchain_tools

    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(to_langchain_tools(registry)))
    builder.add_edge(START, "tools")
    call = {"name": "delete_bin", "args": {"code": "B-1"}, "id": "c1"}
    state = builder.compile().invoke({"messages": [AIMessage("", tool_calls=[call])]})

    assert "__interrupt__" not in state
    (answer,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert answer.status == "error" and answer.text.startswith("Error [DENIED]")
    assert NOT_ASKED in answer.text and "checkpointer" not in answer.text
