"""``scan(obj, public=True)`` offers the object's own methods, not its library bases': a client
class built on ``httpx.Client`` must not hand the model ``get``/``send`` with its credentials.
And a scan that fails part-way leaves the registry as it was."""

from __future__ import annotations

import threading

import httpx
import pytest
from pydantic import BaseModel

from toolkit import RegistrationError, ToolRegistry, mcp_prompt, mcp_resource, mcp_tool


class BillingClient(httpx.Client):
    """A service client as teams write them: auth headers set once, business calls on top."""

    def __init__(self) -> None:
        super().__init__(base_url="http://127.0.0.1:9", headers={"Authorization": "Bearer t0k"})

    def invoice_total(self, number: str) -> float:
        """The total of one invoice.

        Args:
            number: The invoice number.
        """
        return 12.5


class Poller(threading.Thread):
    """A background worker with one business method."""

    def pending(self) -> int:
        """How many items wait."""
        return 3


class Order(BaseModel):
    """An order as a pydantic model with a business method."""

    id: int
    amount: float

    def with_tax(self, rate: float) -> float:
        """The amount with tax.

        Args:
            rate: The tax rate, such as 0.2.
        """
        return self.amount * (1 + rate)


class _OurBase:
    def shared(self) -> str:
        """A method of a base from this project."""
        return "ours"


class OurClient(_OurBase, httpx.Client):
    def own(self) -> str:
        """A method of the class itself."""
        return "own"


@pytest.mark.parametrize(
    ("obj", "names"),
    [
        (BillingClient(), ["invoice_total"]),
        (Poller(), ["pending"]),
        (Order(id=1, amount=10.0), ["with_tax"]),
        (OurClient(), ["own", "shared"]),
    ],
    ids=["httpx.Client", "threading.Thread", "pydantic.BaseModel", "same-project-base"],
)
def test_only_the_objects_own_and_its_projects_methods_are_registered(
    obj: object, names: list[str]
) -> None:
    registry = ToolRegistry()
    registry.scan(obj, public=True)
    assert registry.names() == names


def test_include_names_a_library_method_to_register_it_anyway() -> None:
    registry = ToolRegistry()
    registry.scan(BillingClient(), public=True, include=["invoice_total", "close"])
    assert registry.names() == ["invoice_total", "close"]
    assert registry.call_sync("invoice_total", {"number": "I-1"}).content == "12.5"
    with pytest.raises(RegistrationError, match="not among its methods"):
        ToolRegistry().scan(BillingClient(), public=True, include=["fetch"])


class Half:
    """Its second method cannot be a tool: the scan stops there."""

    def first(self) -> str:
        """Fine."""
        return "first"

    def second(self, key):  # type: ignore[no-untyped-def]
        return key

    def third(self) -> str:
        """Fine too."""
        return "third"

    @mcp_resource("half://state")
    def state(self) -> str:
        """A resource found by the same scan."""
        return "{}"

    @mcp_prompt
    def explain(self) -> str:
        """A prompt found by the same scan."""
        return "Explain."


@mcp_tool
def third() -> str:
    """A tool registered before the scan, whose name the scan's third method takes."""
    return "mine"


def test_a_scan_that_fails_part_way_registers_nothing() -> None:
    registry = ToolRegistry()
    with pytest.raises(RegistrationError, match="second"):
        registry.scan(Half(), public=True)
    assert registry.names() == []
    assert list(registry.resources) == [] and list(registry.prompts) == []

    mine = registry.register(third)
    with pytest.raises(RegistrationError, match="already taken"):
        registry.scan(Half(), public=True, exclude=["second"])
    assert registry.names() == ["third"] and registry.get("third") is mine
    assert list(registry.resources) == [] and list(registry.prompts) == []
