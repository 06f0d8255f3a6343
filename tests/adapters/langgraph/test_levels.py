"""Levels 1 and 2: a templated tool node and a single model turn inside a user's graph."""

from __future__ import annotations

from typing import Any

import pytest
from jinja2 import TemplateError
from langchain_core.messages import ToolMessage
from langgraph.graph import START, MessagesState, StateGraph

from adapters.langgraph import single_turn_node, tool_node
from adapters.testing import ScriptedChatModel, ScriptError
from toolkit import ToolRegistry, ToolResult, mcp_tool


@mcp_tool
def label(code: str, copies: int, text: str) -> dict:
    """Print labels."""
    return {"code": code, "copies": copies, "text": text}


class Order(MessagesState):
    order: dict[str, Any]
    tool_result: ToolResult


def _registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(label)
    return reg


@pytest.mark.anyio
async def test_tool_node_renders_arguments_from_state() -> None:
    arguments = {
        "code": "{order.bin}",
        "copies": "{{ order.lines | length }}",
        "text": "Order {{ order.id }} for {{ order.customer | upper }}",
    }
    builder = StateGraph(Order)
    builder.add_node("print", tool_node(_registry(), "label", arguments))
    builder.add_edge(START, "print")
    graph = builder.compile()
    order = {"id": 7, "bin": "B-1", "customer": "ann", "lines": [1, 2, 3]}
    for state in (graph.invoke({"order": order}), await graph.ainvoke({"order": order})):
        result = state["tool_result"]
        assert not result.is_error
        assert result.structured == {"code": "B-1", "copies": 3, "text": "Order 7 for ANN"}


def test_tool_node_template_errors_name_the_template() -> None:
    builder = StateGraph(Order)
    builder.add_node("print", tool_node(_registry(), "label", {"code": "{order.missing}"}))
    builder.add_edge(START, "print")
    with pytest.raises(TemplateError, match=r"order.missing"):
        builder.compile().invoke({"order": {}})
    with pytest.raises(KeyError):
        tool_node(_registry(), "no_such_tool", {})


def test_single_turn_node_calls_tools_once_inside_a_parent_graph() -> None:
    turn = {"tool_calls": [{"name": "label", "args": {"code": "B", "copies": 1, "text": "t"}}]}
    model = ScriptedChatModel(turns=[turn])
    builder = StateGraph(MessagesState)
    builder.add_node("turn", single_turn_node(model, _registry()))
    builder.add_edge(START, "turn")
    state = builder.compile().invoke({"messages": [("user", "print")]})
    kinds = [type(m).__name__ for m in state["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert isinstance(state["messages"][-1], ToolMessage) and model.remaining == 0


def test_scripted_model_fails_loudly() -> None:
    model = ScriptedChatModel(turns=[{"tool_calls": [{"name": "other", "args": {}}]}])
    schema = {"type": "object", "properties": {}}
    bound = model.bind_tools(
        [{"type": "function", "function": {"name": "label", "parameters": schema}}]
    )
    with pytest.raises(ScriptError, match="'other', which is not bound"):
        bound.invoke("hi")
    with pytest.raises(ScriptError, match="no turn left"):
        model.invoke("again")
