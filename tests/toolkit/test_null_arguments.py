"""A model's ``null`` for an optional parameter means "not given", for every kind of tool.

Function tools, bound methods of undecorated business code, and a JSON-Schema tool (a remote
MCP server run as a subprocess) go through the one rule in the invoker.
"""

from __future__ import annotations

import json
from typing import Optional

import pytest

from adapters.mcp_client import McpClientPool
from tests.adapters.mcp_client.conftest import stdio
from tests.support.business import TravelDesk
from toolkit import ErrorCode, ToolRegistry, mcp_tool


@mcp_tool
def search(
    query: str,
    limit: int = 5,
    note: Optional[str] = "none",  # noqa: UP045 - admits None: a null is a value here
    tags: list[str] | None = None,
    zones: list[str] = ["north"],
) -> str:
    """Search the catalogue.

    Args:
        query: What to look for.
        limit: At most this many results.
        note: A note; ``None`` clears it.
        tags: Only items with these tags.
        zones: Only items in these zones.
    """
    return json.dumps({"query": query, "limit": limit, "note": note, "tags": tags, "zones": zones})


def _called(registry: ToolRegistry, arguments: object) -> dict[str, object]:
    result = registry.call_sync("search", arguments)  # type: ignore[arg-type]
    assert not result.is_error, result.content
    return json.loads(result.content)  # type: ignore[no-any-return]


def test_null_for_an_optional_parameter_gives_its_default() -> None:
    registry = ToolRegistry()
    registry.register(search)
    # The shape of an OpenAI strict-mode answer: every parameter, the unused ones null.
    called = _called(
        registry, '{"query": "bins", "limit": null, "note": null, "tags": null, "zones": null}'
    )
    assert called == {"query": "bins", "limit": 5, "note": None, "tags": None, "zones": ["north"]}
    # A parameter whose type admits None receives None, not its default.
    assert _called(registry, {"query": "bins", "note": None})["note"] is None
    # Nulls and values side by side; a JSON string for a list still decodes after the drop.
    mixed = _called(registry, {"query": "b", "limit": None, "zones": '["south"]'})
    assert mixed["limit"] == 5 and mixed["zones"] == ["south"]
    record = registry.call_sync("search", {"query": "b", "limit": None}).record
    assert record is not None and record.arguments["limit"] == 5


def test_null_for_a_required_parameter_is_still_invalid() -> None:
    registry = ToolRegistry()
    registry.register(search)
    result = registry.call_sync("search", {"query": None, "limit": None})
    assert result.is_error and result.code is ErrorCode.INVALID_PARAMS
    assert "`query`" in result.content and "`limit`" not in result.content.split("Valid")[0]
    wrong = registry.call_sync("search", {"query": "b", "limit": "many"})
    assert wrong.code is ErrorCode.INVALID_PARAMS and "`limit`" in wrong.content


def test_methods_of_undecorated_code_take_nulls_as_not_given() -> None:
    desk = TravelDesk()
    registry = ToolRegistry()
    registry.scan(desk, public=True)
    booked = registry.call_sync(
        "book_room", {"guest": "Ann", "nights": 2, "hotel": None, "breakfast": None}
    )
    assert not booked.is_error, booked.content
    assert desk.bookings["B-1"]["hotel"] == "Harbour Inn"
    assert json.loads(booked.content)["price"]["amount"] == 190  # breakfast's default: True
    listed = registry.call_sync("list_bookings", {"guest": None, "limit": None})
    assert [b["booking_id"] for b in json.loads(listed.content)] == ["B-1"]
    missing = registry.call_sync("book_room", {"guest": "Ann", "nights": None})
    assert missing.code is ErrorCode.INVALID_PARAMS and "`nights`" in missing.content


@pytest.mark.anyio
async def test_a_remote_tool_receives_the_arguments_without_the_null_keys() -> None:
    async with McpClientPool({"echo": stdio()}, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["echo"])
        # slow(ms: int = 100, tag: str = ""): the server itself would refuse a null ms.
        result = await registry.call("echo_slow", {"ms": None, "tag": "done"})
        missing = await registry.call("echo_add", {"a": 1, "b": None})
    assert not result.is_error, result.content
    assert result.content == "done"
    assert result.record is not None and result.record.arguments == {"tag": "done"}
    assert missing.code is ErrorCode.INVALID_PARAMS and "`b`" in missing.content
