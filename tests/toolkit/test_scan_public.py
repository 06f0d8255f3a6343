"""``registry.scan(obj, public=True)``: an undecorated object's methods as tools, in one call.

Recorded model calls replayed through ``registry.call_sync`` give the same results and leave
the object in the same state as calling the methods directly.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic_core import to_jsonable_python

from tests.support.business import TravelDesk
from toolkit import RegistrationError, ToolRegistry, mcp_tool

# Tool calls as models send them: JSON text, nulls for what they leave out, loose values.
RECORDED = [
    ("book_room", '{"guest": "Ann Lee", "nights": 2, "hotel": null, "breakfast": null}'),
    ("book_room", '{"guest": "Bo Chen", "nights": "3", "hotel": "Dune Lodge"}'),
    ("send_message", '{"recipient": "ann@example.org", "body": "Booked.", "urgent": null}'),
    ("list_bookings", '{"guest": null, "limit": null}'),
    ("cancel_booking", '{"booking_id": "B-2", "reason": null}'),
    ("cancel_booking", '{"booking_id": "B-2"}'),
    ("send_message", '{"recipient": "bo@example.org", "body": "Cancelled.", "urgent": true}'),
    ("list_bookings", '{"guest": "Bo Chen", "limit": 1}'),
    ("book_room", '{"guest": "Cy", "nights": 1, "breakfast": false}'),
]


def _direct(desk: TravelDesk, name: str, arguments: str) -> Any:
    """The call a developer would write by hand: nulls left out, values of the right type."""
    kwargs = {k: v for k, v in json.loads(arguments).items() if v is not None}
    if name == "book_room":
        kwargs["nights"] = int(kwargs["nights"])
    return getattr(desk, name)(**kwargs)


def _state(desk: TravelDesk) -> dict[str, Any]:
    return {"bookings": desk.bookings, "outbox": desk.outbox, "next_id": next(desk._ids)}


def test_replayed_calls_match_direct_calls_in_results_and_state() -> None:
    by_hand, served = TravelDesk(), TravelDesk()
    registry = ToolRegistry()
    tools = registry.scan(served, public=True)
    assert [t.name for t in tools] == [
        "send_message",
        "book_room",
        "list_bookings",
        "cancel_booking",
    ]
    for name, arguments in RECORDED:
        expected = _direct(by_hand, name, arguments)
        result = registry.call_sync(name, arguments)
        assert not result.is_error, (name, result.content)  # no call that ran fails
        assert json.loads(result.content) == to_jsonable_python(expected), name
    assert _state(served) == _state(by_hand)
    assert served.open_bookings == by_hand.open_bookings == 2


def test_schemas_come_from_the_signatures_and_docstrings() -> None:
    registry = ToolRegistry()
    registry.scan(TravelDesk(), public=True, namespace="desk")
    spec = registry.get("desk_book_room").spec
    assert spec.description.startswith("Book a hotel room.")
    assert spec.required == ["guest", "nights"]
    assert spec.parameters["hotel"] == {
        "type": "string",
        "default": "Harbour Inn",
        "description": "The hotel.",
    }
    assert registry.names() == [
        "desk_send_message",
        "desk_book_room",
        "desk_list_bookings",
        "desk_cancel_booking",
    ]


def test_include_exclude_and_the_usual_clash_rules() -> None:
    desk = TravelDesk()
    only = ToolRegistry()
    only.scan(desk, public=True, include=["list_bookings", "book_room"])
    assert only.names() == ["book_room", "list_bookings"]
    without = ToolRegistry()
    without.scan(desk, public=True, exclude=["send_message"])
    assert "send_message" not in without.names() and len(without) == 3
    with pytest.raises(RegistrationError, match="'send_mesage' is not among its methods"):
        ToolRegistry().scan(desk, public=True, exclude=["send_mesage"])
    # Two desks under one name clash, as any two tools do; a namespace keeps them apart.
    with pytest.raises(RegistrationError, match="already taken"):
        without.scan(TravelDesk(), public=True, include=["book_room"])
    without.scan(TravelDesk(), public=True, include=["book_room"], namespace="second")
    assert "second_book_room" in without.names()


class _Shop(dict[str, int]):
    """A subclass of a built-in, with every kind of attribute a class can hold."""

    def __init__(self) -> None:
        super().__init__()
        self.sold = 0

    @property
    def stock(self) -> int:
        return sum(self.values())

    def sell(self, item: str, count: int = 1) -> int:
        """Sell items; returns what is left."""
        self[item] = self.get(item, 0) - count
        self.sold += count
        return self[item]

    @staticmethod
    def vat(amount: float) -> float:
        """VAT of an amount."""
        return round(amount * 0.2, 2)

    @classmethod
    def currency(cls) -> str:
        """The shop's currency."""
        return "EUR"

    @mcp_tool(name="restock")
    def _restock(self, item: str, count: int) -> int:
        """Put items back on the shelf."""
        self[item] = self.get(item, 0) + count
        return self[item]

    def _audit(self) -> None: ...

    def __len__(self) -> int:
        return 0


def test_what_counts_as_a_public_method() -> None:
    shop = _Shop()
    registry = ToolRegistry()
    registry.scan(shop, public=True)
    # dict's own methods (keys, get…), properties, dunders and _private helpers are left out;
    # a decorated method keeps its decorator's name.
    assert sorted(registry.names()) == ["currency", "restock", "sell", "vat"]
    assert registry.call_sync("restock", {"item": "pen", "count": 5}).content == "5"
    assert registry.call_sync("sell", {"item": "pen", "count": 2}).content == "3"
    assert shop == {"pen": 3} and shop.sold == 2
    assert registry.call_sync("vat", {"amount": 10}).content == "2.0"
    with pytest.raises(RegistrationError, match="they need an instance"):
        ToolRegistry().scan(_Shop, public=True)
    static = ToolRegistry()
    static.scan(_Shop, public=True, include=["vat", "currency"])
    assert static.call_sync("currency", {}).content == "EUR"


def test_a_method_that_cannot_be_a_tool_is_named_with_the_way_out() -> None:
    class Legacy:
        def lookup(self, key):  # type: ignore[no-untyped-def]
            return key

        def size(self) -> int:
            return 1

    with pytest.raises(RegistrationError) as info:
        ToolRegistry().scan(Legacy(), public=True)
    assert "lookup" in str(info.value) and "exclude=['lookup']" in str(info.value)
    registry = ToolRegistry()
    registry.scan(Legacy(), public=True, exclude=["lookup"])
    assert registry.names() == ["size"]


def test_public_options_do_not_apply_to_modules() -> None:
    with pytest.raises(RegistrationError, match="select the methods of an object"):
        ToolRegistry().scan("tests.support.business", public=True)


def test_resources_and_prompts_of_an_object_are_served_not_made_tools() -> None:
    from toolkit import mcp_prompt, mcp_resource

    class Shop:
        def stock(self, sku: str) -> int:
            """Units in stock.

            Args:
                sku: The article number.
            """
            return 3

        @mcp_resource("shop://config")
        def config(self) -> str:
            """The shop's configuration."""
            return "{}"

        @mcp_prompt
        def restock(self, sku: str) -> str:
            """How to restock an article.

            Args:
                sku: The article number.
            """
            return f"Restock {sku}."

    registry = ToolRegistry()
    registry.scan(Shop(), public=True)
    assert registry.names() == ["stock"]
    assert [r.uri for r in registry.resources.resources()] == ["shop://config"]
    assert [p.name for p in registry.prompts.prompts()] == ["restock"]
