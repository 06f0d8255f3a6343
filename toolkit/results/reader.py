"""``read_result`` and ``result://{call_id}``: how a cut result's full text is read back.

A registry gains both with its first cut result (:func:`offer_reader`), so a model sees the
tool only once it has something to read; every sink that lists the registry's tools then lists
it too (the MCP server announces the change, an agent binds it on its next turn). Both answer
only the caller who made the call: another caller's id reads as unknown.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from toolkit.catalog.resources import mcp_resource
from toolkit.context import ToolContext
from toolkit.decorator import mcp_tool
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool
from toolkit.results.store import ResultStore, StoredResult, owner_of

if TYPE_CHECKING:
    from toolkit.registry import ToolRegistry

__all__ = [
    "DEFAULT_READ",
    "READ_RESULT",
    "RESULT_URI",
    "offer_reader",
    "read_stored",
    "reader_tool",
    "result_resource",
]

#: The name of the tool that reads a cut result back.
READ_RESULT = "read_result"

#: The MCP resource (template) that serves a cut result's full text to its caller.
RESULT_URI = "result://{call_id}"

log = logging.getLogger("toolkit.results")

_offering = threading.Lock()

#: Characters one read returns unless the model asks for fewer.
DEFAULT_READ = 20_000

#: Characters a read's own header may take.
_HEADER_ROOM = 400


def read_stored(
    stored: StoredResult, offset: int = 0, limit: int = DEFAULT_READ, find: str | None = None
) -> str:
    """A slice of ``stored``'s text with a header saying where it is and how to go on.

    The slice fits the budget the result was cut to. With ``find``, it starts a little before
    the first occurrence at or after ``offset`` (plain text, case-sensitive).
    """
    text, total = stored.text, len(stored.text)
    limit = max(1, min(limit, max(stored.budget - _HEADER_ROOM, 200)))
    start = min(max(0, offset), total)
    found = ""
    if find:
        at = text.find(find, start)
        if at < 0:
            return (
                f"[Result of call {stored.call_id}: {_short(find)} does not occur after "
                f"character {start:,} (the result has {total:,} characters).]"
            )
        count = text.count(find)
        start = max(start, at - min(200, limit // 4))
        found = (
            f" {_short(find)} found at character {at:,} ({count:,} occurrence"
            f"{'' if count == 1 else 's'} in all; the next: offset={at + 1} with the same find)."
        )
    end = min(total, start + limit)
    more = (
        f'Read on with {READ_RESULT}(call_id="{stored.call_id}", offset={end}).'
        if end < total
        else "This is the end of the result."
    )
    header = (
        f"[Result of call {stored.call_id} ({stored.tool}): characters {start:,} to {end:,} "
        f"of {total:,}.{found} {more}]"
    )
    return f"{header}\n{text[start:end]}"


def _short(text: str) -> str:
    return json.dumps(text if len(text) <= 80 else f"{text[:77]}...", ensure_ascii=False)


def reader_tool(store_of: Callable[[], ResultStore | None]) -> FunctionTool:
    """The ``read_result`` tool over the store ``store_of()`` returns at each call."""

    # Its answers fit the budget the result was cut to: cutting them again would only loop.
    @mcp_tool(name=READ_RESULT, read_only=True, idempotent=True, result_budget=0)
    def read_result(
        call_id: str,
        context: ToolContext,
        offset: int = 0,
        limit: int = DEFAULT_READ,
        find: str | None = None,
    ) -> str:
        """Read more of a tool result that was cut to fit your context.

        A cut result ends with a note giving its call_id. Read on from a character offset, or
        search the full result for a piece of text.

        Args:
            call_id: The call_id named in the note of the cut result.
            offset: The character to start reading at (0 is the start).
            limit: At most this many characters to read.
            find: Text to search for (exact, case-sensitive); the read starts just before its
                first occurrence at or after offset.
        """
        stored = _stored(store_of, call_id, context)
        return read_stored(stored, offset, limit, find)

    return FunctionTool(read_result)


def result_resource(store_of: Callable[[], ResultStore | None]) -> Callable[..., str]:
    """The ``result://{call_id}`` resource function: a cut result's full text, for its caller."""

    @mcp_resource(RESULT_URI, name="result", mime_type="text/plain")
    def result(call_id: str, context: ToolContext) -> str:
        """The full text of a tool result that was cut to fit a model's context."""
        return _stored(store_of, call_id, context).text

    return result


def _stored(
    store_of: Callable[[], ResultStore | None], call_id: str, context: ToolContext
) -> StoredResult:
    store = store_of()
    stored = None if store is None else store.get(call_id)
    if stored is None or stored.owner != owner_of(context.values):
        raise ToolError(
            f"No kept result has call_id {call_id!r}: use the call_id written in the note "
            "of a cut result. Kept results expire after a while; call the tool again if "
            "this one did.",
            code=ErrorCode.INVALID_PARAMS,
        )
    return stored


def offer_reader(registry: ToolRegistry) -> None:
    """Give ``registry`` the ``read_result`` tool and the ``result://{call_id}`` resource now.

    A registry gains both with its first cut result; a server whose workers share a result
    store (:class:`~toolkit.results.store.SqliteResultStore`) offers them from the start, so any
    worker answers a read of a result another one cut. A tool already named ``read_result`` or
    a resource already at the URI is left alone: it is the application's.
    """
    if READ_RESULT in registry:
        return

    def store() -> ResultStore | None:
        return registry.settings.result_store

    with _offering:  # two results cut at once offer the reader once
        if READ_RESULT in registry:
            return
        try:
            registry.add(reader_tool(store))
        except RegistrationError:  # a tool of that name came in meanwhile: the application's
            log.warning("a tool is named %s: the reader of cut results is not added", READ_RESULT)
        if registry.resources.find(RESULT_URI.replace("{call_id}", "x")) is None:
            registry.resources.register(result_resource(store))
