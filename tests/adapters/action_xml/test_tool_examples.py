"""@mcp_tool(examples=[...]): checked when the tool is made, shown where models can read them."""

from __future__ import annotations

from typing import Literal

import pytest
from mcp import Client

from adapters.action_xml import XmlToolCallingModel
from adapters.mcp_server import build_server
from adapters.testing import ScriptedChatModel
from toolkit import RegistrationError, ToolRegistry, mcp_tool
from toolkit.calls.examples import EXAMPLES_META_KEY


@mcp_tool(
    examples=[{"sku": "WIDGET-1", "quantity": 5}, {"sku": "GADGET-7", "quantity": 1, "unit": "box"}]
)
def reserve(sku: str, quantity: int, unit: Literal["piece", "box"] = "piece") -> str:
    """Reserve stock.

    Args:
        sku: The stock-keeping unit.
        quantity: How many.
        unit: Pieces or boxes.
    """
    return f"reserved {quantity} {unit} of {sku}"


def test_valid_examples_are_on_the_spec() -> None:
    registry = ToolRegistry()
    registry.register(reserve)
    assert registry.get("reserve").spec.examples == (
        {"sku": "WIDGET-1", "quantity": 5},
        {"sku": "GADGET-7", "quantity": 1, "unit": "box"},
    )


@pytest.mark.parametrize(
    ("example", "problem"),
    [
        ({"sku": "W-1"}, "'quantity' is a required property"),
        ({"sku": "W-1", "quantity": "five"}, "quantity: 'five' is not of type 'integer'"),
        ({"sku": "W-1", "quantity": 1, "unit": "crate"}, "unit: 'crate' is not one of"),
        (["W-1", 1], "it is a list, not an object of arguments"),
    ],
)
def test_an_example_that_does_not_fit_fails_registration(example: object, problem: str) -> None:
    @mcp_tool(examples=[{"sku": "W-1", "quantity": 1}, example])  # type: ignore[list-item]
    def hold(sku: str, quantity: int, unit: Literal["piece", "box"] = "piece") -> str:
        """Hold stock."""
        return "held"

    with pytest.raises(RegistrationError) as caught:
        ToolRegistry().register(hold)
    message = str(caught.value)
    assert message.startswith("Example 2 of tool hold (")
    assert problem in message and "models copy examples" in message


@pytest.mark.anyio
async def test_mcp_clients_find_them_in_the_tools_meta() -> None:
    registry = ToolRegistry()
    registry.register(reserve)
    async with Client(build_server(registry), mode="legacy") as client:
        listed = (await client.list_tools()).tools
    assert listed[0].meta == {EXAMPLES_META_KEY: list(registry.get("reserve").spec.examples)}


def test_the_action_prompt_shows_the_authors_call_first() -> None:
    registry = ToolRegistry()
    registry.register(reserve)
    model = XmlToolCallingModel(ScriptedChatModel(turns=["ok"])).bind_tools(registry)
    prompt = model.tools_prompt()  # type: ignore[attr-defined]
    first = prompt.index("I will call reserve.")
    assert "<sku>WIDGET-1</sku>" in prompt[first : first + 200]
    assert "<quantity>5</quantity>" in prompt[first : first + 200]
