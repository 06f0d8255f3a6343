"""Fields of dataclasses and models documented by their class docstring reach the schema, and a
nested argument's error carries the field's type and meaning like a top-level one."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from pydantic import BaseModel, Field

from toolkit import ErrorCode, ToolRegistry, mcp_tool


@dataclass
class Line:
    """A line of an invoice.

    Attributes:
        sku: The product code.
        price: Unit price in EUR.
    """

    sku: str
    price: Decimal
    note: str = ""


@dataclass
class NumpyLine:
    """A line, NumPy style.

    Attributes
    ----------
    sku : str
        The product code.
    """

    sku: str


class Item(BaseModel):
    """An item of an order.

    Attributes:
        sku: Said by the docstring.
        quantity: Overridden by the field's own description.
    """

    sku: str
    quantity: int = Field(ge=1, description="How many units")


@mcp_tool
def invoice(line: Line, lines: list[Line], other: NumpyLine, item: Item | None = None) -> str:
    """Write an invoice.

    Args:
        line: The first line.
        lines: Further lines.
        other: A line documented NumPy style.
        item: An item to add.
    """
    return "ok"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(invoice)
    return registry


def test_a_dataclass_fields_attributes_reach_the_schema() -> None:
    props = _registry().get("invoice").spec.parameters
    line = props["line"]["properties"]
    assert line["sku"]["description"] == "The product code."
    assert line["price"]["description"] == "Unit price in EUR."
    assert "description" not in line["note"]  # undocumented stays undocumented
    items = props["lines"]["items"]
    assert items["description"] == "A line of an invoice."  # never the raw Attributes block
    assert items["properties"]["sku"]["description"] == "The product code."
    assert props["other"]["properties"]["sku"]["description"] == "The product code."


def test_a_models_own_field_description_wins_over_its_docstring() -> None:
    item = _registry().get("invoice").spec.parameters["item"]["anyOf"][0]["properties"]
    assert item["sku"]["description"] == "Said by the docstring."
    assert item["quantity"]["description"] == "How many units"


def test_nested_argument_errors_say_what_is_expected_and_what_it_means() -> None:
    result = _registry().call_sync(
        "invoice",
        {
            "line": {"sku": "A", "price": "lots"},
            "lines": [{"sku": 5, "price": 1}],
            "other": {"sku": "B"},
            "item": {"sku": "C", "quantity": 0},
        },
    )
    assert result.code is ErrorCode.INVALID_PARAMS
    text = result.content
    assert "`line.price`: " in text and "(expected number or string: Unit price in EUR.)" in text
    assert "`lines.0.sku`: " in text and "(expected string: The product code.)" in text
    assert "`item.quantity`: " in text and "(expected integer >= 1: How many units)" in text


def test_a_missing_nested_field_gets_the_hint_too() -> None:
    result = _registry().call_sync(
        "invoice", {"line": {"price": 1}, "lines": [], "other": {"sku": "B"}}
    )
    assert "`line.sku`: required parameter is missing (expected string: The product code.)" in (
        result.content
    )
