"""XmlToolCallingModel: a text-only model drives the registry through the <ACTION> protocol."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from pydantic import Field

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import RunSummary, build_agent
from tests.adapters.action_xml.tools import protocol_registry
from toolkit import ToolRegistry, mcp_tool

CALL = """I need the weather first.
<ACTION>
    <ReadWorldStateTool>
        <path>environment.weather.current_conditions</path>
        <default_value>unknown</default_value>
    </ReadWorldStateTool>
</ACTION>"""


class Recording(FakeListChatModel):
    """A scripted text-only model that keeps every conversation it was sent."""

    seen: list[list[Any]] = Field(default_factory=list)

    def _call(
        self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> str:
        self.seen.append(list(messages))
        return super()._call(messages, stop, run_manager, **kw)


def scripted(*responses: str) -> Recording:
    return Recording(responses=list(responses), seen=[])


def test_full_agent_loop_with_a_text_only_model() -> None:
    inner = scripted(CALL, "It is sunny, so the match goes ahead.")
    state = build_agent(XmlToolCallingModel(inner), protocol_registry()).invoke(
        {"messages": [("user", "Will the match go ahead?")]}
    )
    messages = state["messages"]
    first = messages[1]
    assert isinstance(first, AIMessage) and first.content == "I need the weather first."
    assert first.tool_calls[0]["name"] == "ReadWorldStateTool"
    assert first.tool_calls[0]["args"] == {
        "path": "environment.weather.current_conditions",
        "default_value": "unknown",
    }
    assert isinstance(messages[2], ToolMessage) and messages[2].content == "sunny"
    assert RunSummary.from_state(state).answer == "It is sunny, so the match goes ahead."
    assert [e["tool"] for e in state["tool_calls"]] == ["ReadWorldStateTool"]

    # What the text-only model saw on its second turn: the prompt, its own ACTION, the observation.
    second = inner.seen[1]
    assert isinstance(second[0], SystemMessage)
    assert "`<ReadWorldStateTool>`" in second[0].content and "Example 1" in second[0].content
    assert "<ACTION>" in second[2].content and "environment.weather" in second[2].content
    assert second[3].content == (
        "Observation: Tool ReadWorldStateTool executed successfully. Result: sunny"
    )


def test_error_observation_carries_the_registry_message_and_code() -> None:
    bad = "Setting it.\n<ACTION><set_counter><count>many</count></set_counter></ACTION>"
    good = (
        "Again.\n<ACTION><set_counter><count>3</count><enabled>yes</enabled></set_counter></ACTION>"
    )
    inner = scripted(bad, good, "Done: the counter is 3.")
    state = build_agent(XmlToolCallingModel(inner), protocol_registry()).invoke(
        {"messages": [("user", "set the counter to 3")]}
    )
    observation = inner.seen[1][-1].content
    assert observation.startswith("Observation: Error [INVALID_PARAMS] in tool 'set_counter'")
    assert "`count`" in observation and "`enabled`" in observation
    assert [(e["is_error"], e["code"]) for e in state["tool_calls"]] == [
        (True, "INVALID_PARAMS"),
        (False, None),
    ]
    assert state["messages"][3].tool_calls[0]["args"] == {"count": 3, "enabled": True}


def test_several_calls_in_one_block_give_several_observations_in_one_turn() -> None:
    both = (
        "Two things.\n<ACTION>\n<_3d-render><scene>castle</scene></_3d-render>\n"
        "<_-dash><value>x</value></_-dash>\n</ACTION>"
    )
    inner = scripted(both, "Both done.")
    state = build_agent(XmlToolCallingModel(inner), protocol_registry()).invoke(
        {"messages": [("user", "go")]}
    )
    assert [c["name"] for c in state["messages"][1].tool_calls] == ["3d-render", "-dash"]
    observations = inner.seen[1][-1].content.splitlines()
    assert observations == [
        "Observation: Tool 3d-render executed successfully. Result: rendered castle",
        "Observation: Tool -dash executed successfully. Result: x",
    ]


def test_malformed_block_is_sent_back_and_the_graph_sees_only_the_fixed_call() -> None:
    broken = "Reading.\n<ACTION><ReadWorldStateTool><path>a</pth></ReadWorldStateTool></ACTION>"
    inner = scripted(broken, CALL, "Sunny.")
    model = XmlToolCallingModel(inner).bind_tools(protocol_registry())
    message = model.invoke([HumanMessage("weather?")])
    assert message.tool_calls[0]["args"]["path"] == "environment.weather.current_conditions"
    assert message.response_metadata["action_retries"] == 1
    retry = inner.seen[1][-1].content
    assert retry.startswith("Observation: Malformed XML in ACTION block: mismatched tag at line 1")


def test_retries_run_out_into_a_plain_answer_with_the_reason() -> None:
    broken = "Reading.\n<ACTION><a><b></a></ACTION>"
    model = XmlToolCallingModel(scripted(broken, broken), max_retries=1)
    message = model.bind_tools(protocol_registry()).invoke([HumanMessage("x")])
    assert message.tool_calls == []
    assert message.content == "Reading."
    assert "mismatched tag" in message.response_metadata["action_error"]


@pytest.mark.anyio
async def test_async_loop_and_streaming_hold_the_block_back() -> None:
    inner = scripted(CALL, "Sunny it is.")
    agent = build_agent(XmlToolCallingModel(inner), protocol_registry())
    pieces: list[str] = []
    calls: list[Any] = []
    async for chunk, _meta in agent.astream(
        {"messages": [("user", "weather?")]}, stream_mode="messages"
    ):
        if isinstance(chunk, AIMessage) and not isinstance(chunk, ToolMessage):
            pieces.append(chunk.content if isinstance(chunk.content, str) else "")
            calls.extend(chunk.tool_call_chunks if hasattr(chunk, "tool_call_chunks") else [])
    streamed = "".join(pieces)
    assert "<ACTION" not in streamed and "ReadWorldStateTool>" not in streamed
    assert streamed.startswith("I need the weather first.")
    assert streamed.endswith("Sunny it is.")
    assert [c["name"] for c in calls] == ["ReadWorldStateTool"]


def test_sync_stream_text_first_then_one_chunk_with_the_calls() -> None:
    fenced = "Let me look.\n```xml\n" + CALL.split("\n", 1)[1] + "\n```\ntrailing words"
    model = XmlToolCallingModel(scripted(fenced)).bind_tools(protocol_registry())
    chunks = list(model.stream([HumanMessage("weather?")]))
    text = "".join(c.content for c in chunks if isinstance(c.content, str))
    assert text == "Let me look."
    assert len(chunks) > 3  # the text arrived in pieces, as the wrapped model sent it
    merged: Any = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    assert merged.tool_calls[0]["args"]["default_value"] == "unknown"


def test_approval_interrupt_and_resume_work_through_the_protocol() -> None:
    @mcp_tool(destructive=True)
    def wipe(area: str) -> str:
        """Wipe an area.

        Args:
            area: Which area.
        """
        return f"wiped {area}"

    registry = ToolRegistry()
    registry.register(wipe)
    inner = scripted("Wiping.\n<ACTION><wipe><area>north</area></wipe></ACTION>", "Wiped north.")
    agent = build_agent(XmlToolCallingModel(inner), registry, checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
    paused = agent.invoke({"messages": [("user", "wipe north")]}, config)
    assert "__interrupt__" in paused
    state = agent.invoke(Command(resume="approve"), config)
    assert RunSummary.from_state(state).answer == "Wiped north."
    assert inner.seen[1][-1].content == (
        "Observation: Tool wipe executed successfully. Result: wiped north"
    )


def test_without_tools_text_passes_through_but_an_action_block_does_not() -> None:
    assert XmlToolCallingModel(scripted("Just text, a < b")).invoke("hi").content == (
        "Just text, a < b"
    )
    model = XmlToolCallingModel(scripted("Just text <ACTION> not parsed", "Just text."))
    assert model.invoke("hi").content == "Just text."


@pytest.mark.anyio
async def test_remote_mcp_tools_work_through_the_protocol() -> None:
    import sys
    from pathlib import Path

    from adapters.mcp_client import McpClientPool

    server = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "echo_server.py"
    config = {"echo": {"command": sys.executable, "args": [str(server)]}}
    inner = scripted(
        "Adding.\n<ACTION><echo_add><a>2</a><b>40</b></echo_add></ACTION>",
        "It is 42.",
    )
    async with McpClientPool(config, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["echo"])
        state = await build_agent(XmlToolCallingModel(inner), registry).ainvoke(
            {"messages": [("user", "2 + 40?")]}
        )
    assert state["messages"][1].tool_calls[0]["args"] == {
        "a": 2,
        "b": 40,
    }  # coerced by the remote schema
    assert (
        inner.seen[1][-1].content == "Observation: Tool echo_add executed successfully. Result: 42"
    )
    assert RunSummary.from_state(state).answer == "It is 42."


def test_single_turn_node_level_two_with_a_text_only_model() -> None:
    from adapters.langgraph import single_turn_node

    inner = scripted(CALL)
    node = single_turn_node(XmlToolCallingModel(inner), protocol_registry())
    state = node.invoke({"messages": [("user", "weather?")]})
    assert [type(m).__name__ for m in state["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
    ]
    assert state["messages"][-1].content == "sunny"
    assert len(inner.seen) == 1  # one turn, no loop


@pytest.mark.anyio
async def test_async_and_streamed_answers_are_retried_when_malformed() -> None:
    broken = "Reading.\n<ACTION><ReadWorldStateTool><path>a</pth></ReadWorldStateTool></ACTION>"
    bound = XmlToolCallingModel(scripted(broken, CALL)).bind_tools(protocol_registry())
    message = await bound.ainvoke([HumanMessage("weather?")])
    assert message.tool_calls[0]["name"] == "ReadWorldStateTool"
    assert message.response_metadata["action_retries"] == 1

    streamed = XmlToolCallingModel(scripted(broken, CALL)).bind_tools(protocol_registry())
    chunks = [c async for c in streamed.astream([HumanMessage("weather?")])]
    merged: Any = chunks[0]
    for c in chunks[1:]:
        merged = merged + c
    assert merged.content == "Reading."  # the first answer's text, already shown
    assert merged.tool_calls[0]["args"]["path"] == "environment.weather.current_conditions"
