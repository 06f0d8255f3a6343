"""Stop at a tool: a return_direct tool's result ends the run as the final answer."""

from __future__ import annotations

from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import RunSummary, build_agent
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import ToolError, mcp_tool


@mcp_tool(return_direct=True)
def quote(parcel: str) -> str:
    """Quote the postage of a parcel, shown to the user as is.

    Args:
        parcel: The parcel id.
    """
    if parcel == "P-0":
        raise ToolError("Parcel P-0 does not exist; parcel ids look like P-12.")
    return f"Postage for {parcel}: 4.20 EUR"


@mcp_tool
def weigh(parcel: str) -> str:
    """Weigh a parcel.

    Args:
        parcel: The parcel id.
    """
    return "2 kg"


def test_the_marked_tools_result_is_the_final_answer(stub: OpenAIStub) -> None:
    stub.script(Turn(tool_calls=[Call("quote", {"parcel": "P-1"})]))
    state = build_agent(chat(stub), [quote, weigh]).invoke({"messages": [("user", "postage?")]})

    assert len(stub.requests) == 1  # the model is not called again
    last = state["messages"][-1]
    assert isinstance(last, AIMessage) and last.content == "Postage for P-1: 4.20 EUR"
    assert last.response_metadata["return_direct"] == ["quote"]
    assert RunSummary.from_state(state).answer == "Postage for P-1: 4.20 EUR"


def test_a_failed_call_goes_back_to_the_model(stub: OpenAIStub) -> None:
    stub.script(
        Turn(tool_calls=[Call("quote", {"parcel": "P-0"})]),
        Turn(tool_calls=[Call("quote", {"parcel": "P-12"}), Call("weigh", {"parcel": "P-12"})]),
    )
    state = build_agent(chat(stub), [quote, weigh]).invoke({"messages": [("user", "postage?")]})
    assert len(stub.requests) == 2
    assert state["messages"][-1].content == "Postage for P-12: 4.20 EUR"


def test_build_agent_names_tools_that_stop(stub: OpenAIStub) -> None:
    stub.script(Turn(tool_calls=[Call("weigh", {"parcel": "P-1"})]))
    agent = build_agent(chat(stub), [quote, weigh], return_direct=["weigh"])
    state = agent.invoke({"messages": [("user", "weight?")]})
    assert len(stub.requests) == 1 and state["messages"][-1].content == "2 kg"


def test_the_action_protocol_stops_the_same_way() -> None:
    action = "Quoting.\n<ACTION><quote><parcel>P-7</parcel></quote></ACTION>"
    inner = FakeListChatModel(responses=[action, "never sent"])
    state = build_agent(XmlToolCallingModel(inner), [quote, weigh]).invoke(
        {"messages": [("user", "postage for P-7?")]}
    )
    assert state["messages"][-1].content == "Postage for P-7: 4.20 EUR"
    assert inner.i == 1  # one model call only
