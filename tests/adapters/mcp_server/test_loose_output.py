"""Over MCP, a value looser than its annotation is a successful result the SDK client accepts.

The SDK client (``ClientSession.validate_tool_result``) raises when a tool that published an
``outputSchema`` answers without ``structuredContent`` or with one that breaks it. So a tool
whose output is lenient (the default) publishes no ``outputSchema``: its results carry the text,
and ``structuredContent`` when the value has a structured form. A strict tool publishes it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from adapters.mcp_server import build_server
from tests.support import business

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
SEND = {"recipient": "ann@example.org", "body": "Your room is ready."}


def _params() -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "adapters.mcp_server", "tests.support.business:registry"],
        env=env,
        cwd=str(ROOT),
    )


def _text(result: object) -> str:
    return "".join(getattr(block, "text", "") for block in getattr(result, "content", []))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_gets_the_value_over_stdio(mode: str) -> None:
    async with Client(_params(), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        sent = await client.call_tool("send_message", SEND)
        booked = await client.call_tool("book_room", {"guest": "Ann Lee", "nights": 2})
        bookings = await client.call_tool("list_bookings", {})
    assert sorted(listed) == [
        "book_room",
        "cancel_booking",
        "list_bookings",
        "send_message",
    ]
    assert all(tool.output_schema is None for tool in listed.values())
    assert sent.is_error is False and sent.structured_content is None
    assert json.loads(_text(sent)) == business.TravelDesk().send_message(**SEND)
    assert booked.is_error is False
    assert json.loads(_text(booked))["price"] == {"amount": 190, "currency": "EUR"}
    # A value that has a structured form still sends it (no schema to break).
    (booking,) = json.loads(_text(bookings))
    assert bookings.structured_content == {"result": [booking]}


async def test_a_strict_registry_publishes_the_schema_and_reports_the_mismatch() -> None:
    registry = business.build(strict_output=True)
    async with Client(build_server(registry), mode="legacy") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        sent = await client.call_tool("send_message", SEND)
        cancelled = await client.call_tool("cancel_booking", {"booking_id": "B-9"})
    assert listed["send_message"].output_schema == registry.get("send_message").spec.output_schema
    assert sent.is_error is True and "does not match its declared return type" in _text(sent)
    assert cancelled.is_error is False and cancelled.structured_content == {"result": False}
