"""Resources and prompts served next to a tool, for the MCP server and client tests.

Served with ``toolkit serve tests.support.served_resources`` (the module is scanned) or
in-process from :data:`registry`.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from typing import Literal

from toolkit import (
    ImageContent,
    PromptMessage,
    ResourceContent,
    TextContent,
    ToolRegistry,
    mcp_prompt,
    mcp_resource,
    mcp_tool,
)

__all__ = ["ORDERS", "PIXEL_PNG", "registry"]

PIXEL_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
ORDERS = {7: {"id": 7, "status": "shipped"}, 12: {"id": 12, "status": "open"}}


class Tone(enum.Enum):
    """How long a review is."""

    SHORT = "short"
    DETAILED = "detailed"


@mcp_resource("config://app", title="App config")
def app_config() -> str:
    """The application's settings."""
    return "tenant=acme\nregion=eu"


@mcp_resource("files://logo.png", mime_type="image/png")
def logo() -> bytes:
    """The company logo."""
    import base64

    return base64.b64decode(PIXEL_PNG)


def _order_ids(value: str, context: Mapping[str, str]) -> list[str]:
    return [str(i) for i in ORDERS if str(i).startswith(value)]


@mcp_resource("orders://{order_id}", completions={"order_id": _order_ids})
def order(order_id: int) -> dict[str, object]:
    """One order as a document.

    Args:
        order_id: The order number.
    """
    return ORDERS[order_id]


@mcp_prompt(title="Review an order")
def review_order(order_id: str, tone: Tone = Tone.SHORT) -> list[PromptMessage]:
    """Ask for a review of one order.

    Args:
        order_id: The order to review.
        tone: How long the review should be.
    """
    document = ResourceContent(uri=f"orders://{order_id}", mime_type="text/plain", text="...")
    return [
        PromptMessage("user", TextContent(text=f"Review order {order_id}, {tone.value}.")),
        PromptMessage("user", document),
        PromptMessage("assistant", TextContent(text="I will read the order first.")),
    ]


@mcp_prompt
def describe_logo(style: Literal["plain", "fancy"]) -> list[object]:
    """Describe the logo.

    Args:
        style: Plain or fancy words.
    """
    return [f"Describe this logo in {style} words.", ImageContent(PIXEL_PNG, "image/png")]


@mcp_tool
def touch_order(order_id: int) -> str:
    """Mark an order as changed, so subscribers hear about it."""
    registry.resources.updated(f"orders://{order_id}")
    return "touched"


registry = ToolRegistry()
registry.scan(sys.modules[__name__])
