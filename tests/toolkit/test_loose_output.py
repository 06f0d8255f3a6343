"""A return value looser than its annotation never turns a finished call into a failure.

The tools are business methods written without the toolkit in mind (``tests.support.business``):
they annotate ``-> Dict[str, Union[str, bool]]`` and return nested dicts.
"""

from __future__ import annotations

import json
import logging
from typing import Dict, Union  # noqa: UP035 - written as such code is

import anyio
import pytest
from langchain_core.messages import ToolMessage

from adapters.langchain import to_langchain_tools
from tests.support.business import TravelDesk
from toolkit import ErrorCode, ToolRegistry, mcp_tool

SEND = {"recipient": "ann@example.org", "body": "Your room is ready."}
SEND_MISMATCH = "delivery: Input should be a valid string; or Input should be a valid boolean"


def _desk_registry(**options: bool) -> tuple[TravelDesk, ToolRegistry]:
    desk = TravelDesk()
    registry = ToolRegistry(**options)
    registry.scan(desk, public=True)
    return desk, registry


def _warnings(caplog: pytest.LogCaptureFixture, tool: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.getMessage().startswith(f"tool {tool} returned")
    ]


def test_the_model_gets_the_value_and_the_call_succeeds(caplog: pytest.LogCaptureFixture) -> None:
    desk, registry = _desk_registry()
    direct = TravelDesk().send_message(**SEND)
    with caplog.at_level(logging.WARNING, "toolkit.calls"):
        sync = registry.call_sync("send_message", SEND)
        in_loop = anyio.run(registry.call, "send_message", {**SEND, "urgent": True})
        booked = registry.call_sync("book_room", {"guest": "Ann Lee", "nights": 2})
    assert not sync.is_error and not in_loop.is_error and not booked.is_error
    # Serialized as without an output schema: the value's own JSON, every key kept.
    assert json.loads(sync.content) == direct
    assert json.loads(in_loop.content)["delivery"] == {"channels": ["email", "sms"], "attempts": 1}
    assert json.loads(booked.content)["price"] == {"amount": 190, "currency": "EUR"}
    # The structured copy that would break the schema is left out.
    assert sync.structured is None and in_loop.structured is None
    assert sync.output_mismatch is not None
    assert sync.output_mismatch.code is ErrorCode.EXECUTION_ERROR
    # The record says so.
    assert sync.record is not None and sync.record.outcome == "ok"
    assert sync.record.output_mismatch == SEND_MISMATCH
    assert sync.record.to_dict()["output_mismatch"] == SEND_MISMATCH
    assert booked.record is not None
    assert booked.record.output_mismatch == (
        "price: Input should be a valid string; or Input should be a valid integer"
    )
    # Both messages went out: the calls ran, and nobody is told otherwise.
    assert [m["id"] for m in desk.outbox] == ["M-1", "M-2"]
    # One warning per tool, not per call, naming the tool, the annotation and the mismatch.
    (warning,) = _warnings(caplog, "send_message")
    assert "Dict[str, Union[str, bool]]" in warning and SEND_MISMATCH in warning
    assert "strict_output=True" in warning
    assert len(_warnings(caplog, "book_room")) == 1


def test_values_that_match_keep_their_structured_result() -> None:
    _, registry = _desk_registry()
    registry.call_sync("book_room", {"guest": "Ann Lee", "nights": 1})
    listed = registry.call_sync("list_bookings", {})
    cancelled = registry.call_sync("cancel_booking", {"booking_id": "B-1"})
    assert listed.structured == {"result": [json.loads(listed.content)[0]]}
    assert cancelled.structured == {"result": True} and cancelled.content == "true"
    assert listed.output_mismatch is None and listed.record is not None
    assert listed.record.output_mismatch is None
    assert "output_mismatch" not in listed.record.to_dict()


def test_strict_output_keeps_the_error_per_tool_and_per_registry() -> None:
    @mcp_tool(strict_output=True)
    def strict_report(to: str) -> Dict[str, Union[str, bool]]:  # noqa: UP006, UP007
        """Send a report."""
        return {"to": to, "meta": {"n": 1}}

    @mcp_tool(strict_output=False)
    def lenient_report(to: str) -> Dict[str, Union[str, bool]]:  # noqa: UP006, UP007
        """Send a report."""
        return {"to": to, "meta": {"n": 1}}

    lenient = ToolRegistry()
    lenient.register(strict_report)
    failed = lenient.call_sync("strict_report", {"to": "x"})
    assert failed.is_error and failed.code is ErrorCode.EXECUTION_ERROR
    assert "does not match its declared return type" in failed.content
    assert failed.record is not None and failed.record.outcome == "error"

    desk, strict = _desk_registry(strict_output=True)
    strict.register(lenient_report)
    refused = strict.call_sync("send_message", SEND)
    assert refused.is_error and refused.code is ErrorCode.EXECUTION_ERROR
    assert len(desk.outbox) == 1  # it ran: strict applications asked to hear about it anyway
    assert not strict.call_sync("lenient_report", {"to": "x"}).is_error
    assert strict.output_enforced(strict.get("send_message").spec)
    assert not strict.output_enforced(strict.get("lenient_report").spec)
    assert not lenient.output_enforced(_desk_registry()[1].get("send_message").spec)


def test_the_langchain_tool_answers_with_the_value() -> None:
    desk, registry = _desk_registry()
    tools = {tool.name: tool for tool in to_langchain_tools(registry)}
    call = {"name": "send_message", "args": SEND, "id": "c1", "type": "tool_call"}
    message = tools["send_message"].invoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "success"
    assert json.loads(message.text) == TravelDesk().send_message(**SEND)
    assert message.artifact is None
    text = anyio.run(tools["book_room"].ainvoke, {"guest": "Bo", "nights": 3})
    assert json.loads(text)["price"]["amount"] == 285
    assert len(desk.outbox) == 1 and len(desk) == 1
