"""Every page of a listing (``tools/list``, ``resources/list``, ``prompts/list``…).

A server that never stops paging is cut off with ``PROTOCOL_ERROR`` after ``MAX_PAGES`` pages
rather than followed forever; an item listed twice (a server repeating itself across pages)
is kept once, at its first place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from toolkit.errors import ErrorCode, ToolError

__all__ = ["MAX_PAGES", "all_pages"]

#: Most pages fetched for one listing.
MAX_PAGES = 1000


async def all_pages(
    fetch: Callable[[str | None], Awaitable[Any]],
    key: str,
    *,
    method: str,
    identity: str = "name",
) -> list[Any]:
    """The items under ``key`` of every page ``fetch(cursor)`` returns, in order.

    Args:
        fetch: Sends one request with the cursor (``None`` for the first page).
        key: The page's field holding the items (``"tools"``, ``"resources"``…).
        method: The request's name, for the error.
        identity: The item field that tells two items apart (``"name"``, ``"uri"``…).

    Raises:
        ToolError: ``PROTOCOL_ERROR`` when the pages do not end after ``MAX_PAGES``.
    """
    items: list[Any] = []
    seen: set[Any] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        for item in getattr(page, key):
            marker = getattr(item, identity, None)
            if marker is None or marker not in seen:
                seen.add(marker)
                items.append(item)
        cursor = page.next_cursor
        if not cursor:
            return items
    raise ToolError(f"{method} did not end after {MAX_PAGES} pages", code=ErrorCode.PROTOCOL_ERROR)
