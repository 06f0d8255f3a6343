"""Each run offers its model only the tools its caller may see, as each tool prepares them."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import pytest

from adapters.langgraph import build_agent
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import CallOptions, CallRequest, ToolContext, ToolRegistry, ToolSpec, mcp_tool


def _offer_refunds(spec: ToolSpec, context: ToolContext) -> ToolSpec | None:
    if context.get("role") == "guest":
        return None  # guests are never offered refunds
    if context.get("role") == "clerk":
        schema = dict(spec.input_schema)
        props = dict(schema["properties"])
        props["amount"] = {**props["amount"], "maximum": 50}
        return dataclasses.replace(
            spec,
            description=spec.description + " Clerks refund at most 50 EUR.",
            input_schema={**schema, "properties": props},
        )
    return spec


@mcp_tool(prepare=_offer_refunds)
def refund(order: str, amount: float) -> str:
    """Refund an order.

    Args:
        order: The order id.
        amount: Euros to refund.
    """
    return f"refunded {amount} on {order}"


@mcp_tool
def find_order(order: str) -> str:
    """Find an order.

    Args:
        order: The order id.
    """
    return f"{order}: shipped"


@mcp_tool(destructive=True)
def purge_orders() -> str:
    """Delete every order."""
    return "purged"


def _admins_only(request: CallRequest) -> str:
    if request.tool == "purge_orders" and request.context.get("role") != "admin":
        return "deny"
    return "allow"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for fn in (refund, find_order, purge_orders):
        registry.register(fn)
    return registry


def _offered(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in request.get("tools") or []}


def _run(agent: Any, role: str) -> None:
    agent.invoke({"messages": [("user", "hi")]}, {"configurable": {"role": role}})


def test_one_agent_offers_each_caller_its_own_tools(stub: OpenAIStub) -> None:
    stub.script(Turn(text="ok"), Turn(text="ok"), Turn(text="ok"))
    agent = build_agent(
        chat(stub), _registry(), options=CallOptions(policy=_admins_only), context_keys=["role"]
    )
    for role in ("admin", "clerk", "guest"):
        _run(agent, role)

    admin, clerk, guest = (_offered(r) for r in stub.requests)
    assert sorted(admin) == ["find_order", "purge_orders", "refund"]
    assert sorted(clerk) == ["find_order", "refund"]
    assert sorted(guest) == ["find_order"]
    assert "at most 50" in clerk["refund"]["description"]
    assert clerk["refund"]["parameters"]["properties"]["amount"]["maximum"] == 50
    assert "maximum" not in admin["refund"]["parameters"]["properties"]["amount"]


@pytest.mark.anyio
async def test_under_ainvoke_too(stub: OpenAIStub) -> None:
    stub.script(Turn(text="ok"))
    agent = build_agent(
        chat(stub), _registry(), options=CallOptions(policy=_admins_only), context_keys=["role"]
    )
    await agent.ainvoke({"messages": [("user", "hi")]}, {"configurable": {"role": "guest"}})
    assert sorted(_offered(stub.requests[0])) == ["find_order"]


def test_a_caller_who_sees_no_tool_gets_the_model_without_tools(stub: OpenAIStub) -> None:
    stub.script(Turn(text="I cannot do anything for you."))
    agent = build_agent(chat(stub), _registry(), options=CallOptions(policy=lambda request: "deny"))
    state = agent.invoke({"messages": [("user", "hi")]})
    assert "tools" not in stub.requests[0] and stub.rejections == []
    assert state["messages"][-1].content == "I cannot do anything for you."


def test_a_hook_that_raises_hides_its_tool_with_a_warning(
    stub: OpenAIStub, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(spec: ToolSpec, context: ToolContext) -> ToolSpec | None:
        raise KeyError("role")

    @mcp_tool(prepare=broken)
    def ship(order: str) -> str:
        """Ship an order."""
        return "shipped"

    stub.script(Turn(tool_calls=[Call("find_order", {"order": "O-1"})]), Turn(text="ok"))
    with caplog.at_level(logging.WARNING, logger="adapters.langgraph"):
        build_agent(chat(stub), [ship, find_order]).invoke({"messages": [("user", "hi")]})
    assert [sorted(_offered(r)) for r in stub.requests] == [["find_order"], ["find_order"]]
    assert "prepare hook of tool ship raised KeyError" in caplog.text


def test_a_call_of_a_tool_the_caller_cannot_see_is_not_found(stub: OpenAIStub) -> None:
    stub.script(Turn(tool_calls=[Call("purge_orders", {})]), Turn(text="I cannot purge."))
    agent = build_agent(
        chat(stub), _registry(), options=CallOptions(policy=_admins_only), context_keys=["role"]
    )
    state = agent.invoke({"messages": [("user", "purge")]}, {"configurable": {"role": "clerk"}})
    [entry] = state["tool_calls"]
    assert entry["code"] == "TOOL_NOT_FOUND"
    assert "Available tools: find_order, refund." in str(entry["result"])
