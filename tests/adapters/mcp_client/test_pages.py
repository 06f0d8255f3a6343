"""Every page of a listing, each item once, and a server that pages forever cut off."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import pytest

from adapters.mcp_client._pages import MAX_PAGES, all_pages
from toolkit import ErrorCode, ToolError


@dataclass
class _Item:
    name: str


@dataclass
class _Page:
    tools: list[_Item]
    next_cursor: str | None = None


@dataclass
class _Server:
    """Answers ``tools/list`` pages from a fixed book; a cursor names the next page."""

    pages: list[list[str]]
    asked: list[str | None] = field(default_factory=list)

    async def fetch(self, cursor: str | None) -> _Page:
        self.asked.append(cursor)
        index = int(cursor or 0)
        more = str(index + 1) if index + 1 < len(self.pages) else None
        return _Page([_Item(n) for n in self.pages[index]], more)


def test_items_of_every_page_in_order_and_a_repeated_one_kept_once() -> None:
    server = _Server([["a", "b"], ["b", "c"], ["d"]])
    items = anyio.run(lambda: all_pages(server.fetch, "tools", method="tools/list"))
    assert [i.name for i in items] == ["a", "b", "c", "d"]
    assert server.asked == [None, "1", "2"]


def test_a_server_that_never_stops_paging_is_a_protocol_error() -> None:
    async def forever(cursor: str | None) -> _Page:
        return _Page([_Item(f"t{cursor}")], str(int(cursor or 0) + 1))

    with pytest.raises(ToolError) as caught:
        anyio.run(lambda: all_pages(forever, "tools", method="prompts/list"))
    assert caught.value.code is ErrorCode.PROTOCOL_ERROR
    assert f"prompts/list did not end after {MAX_PAGES} pages" in caught.value.message
