"""Skills: a compiled LangGraph graph as one tool, called natively or from one <ACTION> block."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import FakeListChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import RunSummary, build_agent, graph_tool
from toolkit import ToolContext, ToolRegistry


class Refund(TypedDict, total=False):
    order_id: str
    amount: float
    checked: bool
    status: str
    tenant: str


def _check(state: Refund, config: RunnableConfig) -> Refund:
    tenant = config.get("configurable", {}).get("tenant", "?")
    return {"checked": state["amount"] <= 100, "tenant": tenant}


def _refund(state: Refund) -> Refund:
    status = f"refunded {state['amount']:.2f}" if state["checked"] else "needs a manager"
    return {"status": f"{state['order_id']}: {status}"}


def _graph() -> Any:
    builder = StateGraph(Refund)
    builder.add_node("check", _check)
    builder.add_node("refund", _refund)
    builder.add_edge(START, "check")
    builder.add_edge("check", "refund")
    builder.add_edge("refund", END)
    return builder.compile(name="refund_flow")


SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order."},
        "amount": {"type": "number", "description": "How much to refund."},
    },
    "required": ["order_id", "amount"],
    "additionalProperties": False,
}


def _registry(**kwargs: Any) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add(
        graph_tool(
            _graph(), name="refund_order", description="Check and refund an order.", **kwargs
        )
    )
    return registry


def test_the_whole_workflow_is_one_call_with_context_values() -> None:
    registry = _registry(input_schema=SCHEMA, output_key="status")
    result = registry.call_sync(
        "refund_order",
        {"order_id": "O-7", "amount": 30},
        context=ToolContext(values={"tenant": "acme"}),
    )
    assert not result.is_error and result.content == "O-7: refunded 30.00"
    whole = _registry(input_schema=SCHEMA).call_sync(
        "refund_order",
        {"order_id": "O-8", "amount": 300},
        context=ToolContext(values={"tenant": "acme"}),
    )
    assert whole.structured["status"] == "O-8: needs a manager"
    assert whole.structured["tenant"] == "acme"


def test_arguments_are_validated_against_the_schema() -> None:
    result = _registry(input_schema=SCHEMA).call_sync("refund_order", {"order_id": "O-7"})
    assert result.is_error and result.code is not None and result.code.value == "INVALID_PARAMS"
    assert "amount" in result.content


def test_without_a_schema_the_graph_input_schema_is_used() -> None:
    spec = _registry().get("refund_order").spec
    assert set(spec.input_schema["properties"]) >= {"order_id", "amount"}


def test_a_text_only_model_runs_the_skill_from_one_action_block() -> None:
    inner = FakeListChatModel(
        responses=[
            "Refunding.\n<ACTION><refund_order><order_id>O-9</order_id><amount>12.5</amount>"
            "</refund_order></ACTION>",
            "Done: O-9 is refunded.",
        ]
    )
    registry = _registry(input_schema=SCHEMA, output_key="status")
    state = build_agent(XmlToolCallingModel(inner), registry).invoke(
        {"messages": [("user", "refund O-9, 12.50")]}
    )
    assert state["messages"][2].content == "O-9: refunded 12.50"
    assert RunSummary.from_state(state).answer == "Done: O-9 is refunded."
