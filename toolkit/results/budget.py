"""The result budget: no tool result floods a model's context, and nothing it returned is lost.

The budget is a number of **characters of the text the model reads** (about four characters
make a token in English text and code, so the default of 100,000 characters is about 25,000
tokens). It is set, the first given winning:

* per call: ``CallOptions(result_budget=...)``;
* per tool: ``@mcp_tool(result_budget=...)``;
* per registry: ``RegistrySettings(result_budget=...)`` (default :data:`DEFAULT_RESULT_BUDGET`).

:data:`NO_BUDGET` (``0``) turns the cut off. A result that fits is handed on as the very same
object: nothing is copied or changed. Past the budget, the model reads:

* text: the head and the tail, with a note between them;
* JSON (a structured result): the same JSON shape, still valid — lists keep their first
  items, objects keep every key, long strings keep their head and tail — followed by a note;
* images, audio and binary resources: a note with their type and size, when they do not fit.

The note says the full size, what was left out, and how to read more: the full text is kept
in the registry's ``result_store`` (in memory for an hour by default, see
:mod:`toolkit.results.store`) and the ``read_result`` tool, offered to the model once a result
was cut, reads it by offset or by a search for a piece of text. The call's
:class:`~toolkit.CallRecord` says the result was cut (``full_size``).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)
from toolkit.results._cut import Cut, cut_json, cut_json_text, cut_text, json_size
from toolkit.results.reader import READ_RESULT, RESULT_URI
from toolkit.results.store import ResultStore, StoredResult, owner_of
from toolkit.schema._serialize import dumps

if TYPE_CHECKING:
    from toolkit.calls.options import CallOptions
    from toolkit.calls.settings import RegistrySettings
    from toolkit.calls.spec import ToolSpec

__all__ = [
    "DEFAULT_RESULT_BUDGET",
    "MIN_RESULT_BUDGET",
    "NO_BUDGET",
    "READ_RESULT",
    "RESULT_URI",
    "ResultCut",
    "budget_of",
    "fit_result",
]

log = logging.getLogger("toolkit.results")

#: Characters of a result a model reads by default (about 25,000 tokens).
DEFAULT_RESULT_BUDGET = 100_000

#: The budget that turns the cut off: every result reaches the model whole.
NO_BUDGET = 0

#: A smaller budget is raised to this: the note and a useful head need the room.
MIN_RESULT_BUDGET = 1_000


#: Characters the note may take (it is checked, not assumed).
_NOTE_ROOM = 700


@dataclass(frozen=True, slots=True)
class ResultCut:
    """How a result was cut to fit the budget.

    Attributes:
        full_size: Characters of the full result (what the model would have read).
        shown_size: Characters the model reads now, note included (at most ``budget``).
        budget: The budget it was cut to.
        omitted: What was left out, in words (``"$.rows: items 20 to 49,999 of 50,000"``).
        kept_until: POSIX time until which the full text can be read back (``None``: it
            could not be kept).
    """

    full_size: int
    shown_size: int
    budget: int
    omitted: tuple[str, ...]
    kept_until: float | None


def budget_of(spec: ToolSpec, options: CallOptions, settings: RegistrySettings) -> int:
    """The budget of one call: the call's, else the tool's, else the registry's."""
    given = options.result_budget
    if given is None:
        given = spec.options.result_budget
    return settings.result_budget if given is None else given


def model_size(result: ToolResult, limit: int) -> int:
    """Characters of ``result`` a model reads (base64 for images and binaries), up to ``limit``.

    Past ``limit`` the exact figure may not be computed (``limit + 1`` or more is returned).
    """
    if not result.blocks:
        return _content_size(result, limit)
    size = 0 if any(isinstance(b, TextContent) for b in result.blocks) else len(result.content)
    return size + sum(_block_size(b) for b in result.blocks)


def fit_result(
    result: ToolResult,
    budget: int,
    *,
    call_id: str,
    context_values: Mapping[str, Any],
    store: ResultStore | None,
) -> ToolResult:
    """``result`` itself when it fits ``budget``, else a cut copy whose full text is stored.

    Args:
        result: What the tool returned.
        budget: Characters the model may read (:data:`NO_BUDGET`: no limit).
        call_id: The call's id, under which the full text is kept.
        context_values: The caller's values (who may read the full text back).
        store: Where the full text is kept (``None``: nowhere; the note says so).
    """
    if budget == NO_BUDGET:
        return result
    budget = max(budget, MIN_RESULT_BUDGET)
    content = result.content
    if content and not result.blocks:  # text alone: its length is what the model reads
        if len(content) <= budget:
            return result
    elif model_size(result, budget) <= budget:
        return result
    full = model_size(result, 1 << 62)
    kept_until = _keep(result, budget, call_id, context_values, store)
    stored = store is not None
    best: ToolResult | None = None
    for room in (budget - _NOTE_ROOM, (budget - _NOTE_ROOM) * 3 // 4, budget // 4):
        best = _attempt(result, max(room, 100), budget, full, call_id, kept_until, stored)
        if best is not None:
            break
    if best is None:  # nothing fits (a budget smaller than a note and a head): text only
        head = result.content[: cut_text(result.content, budget - _NOTE_ROOM)[0]]
        note = _note(full, Cut(["the rest"]), call_id, kept_until, stored)
        best = dataclasses.replace(result, content=_join(head, note), structured=None, blocks=[])
        best.cut = ResultCut(full, len(best.content), budget, ("the rest",), kept_until)
        return best
    assert best.cut is not None
    spare = budget - best.cut.shown_size
    if spare > max(200, budget // 50):  # the note needed less room than kept: give it the text
        room = budget - _NOTE_ROOM + spare - 60
        better = _attempt(result, room, budget, full, call_id, kept_until, stored)
        best = better or best
    return best


def _attempt(
    result: ToolResult,
    room: int,
    budget: int,
    full: int,
    call_id: str,
    kept_until: float | None,
    stored: bool,
) -> ToolResult | None:
    """``result`` cut to ``room`` characters with its note, or ``None`` if it passes ``budget``."""
    cut = Cut()
    content, structured, blocks = _cut_result(result, room, cut)
    note = _note(full, cut, call_id, kept_until, stored)
    cut_result = dataclasses.replace(result, content=_join(content, note), structured=structured)
    cut_result.blocks = _with_note(blocks, note) if blocks else []
    size = model_size(cut_result, budget)
    if size > budget:
        return None
    cut_result.cut = ResultCut(full, size, budget, tuple(cut.omitted), kept_until)
    return cut_result


# -- sizes -------------------------------------------------------------------------------------


def _content_size(result: ToolResult, limit: int) -> int:
    if result.content or not isinstance(result.structured, dict | list):
        return len(result.content)
    try:
        return json_size(result.structured, limit)
    except (RecursionError, ValueError, TypeError):
        return len(result.content)


def _block_size(block: Content) -> int:
    if isinstance(block, TextContent):
        return len(block.text)
    if isinstance(block, ImageContent | AudioContent):
        return len(block.data)
    return len(block.text or block.blob or "") + len(block.uri)


# -- cutting -----------------------------------------------------------------------------------


def _cut_result(result: ToolResult, room: int, cut: Cut) -> tuple[str, Any, list[Content]]:
    """The cut content, structured value and blocks of ``result`` in about ``room`` chars."""
    structured = result.structured
    if not result.blocks:
        if _is_json_of(result):
            try:
                value, text = cut_json(structured, room, cut)
                return text, value, []
            except (RecursionError, ValueError, TypeError):  # too deep to walk: cut as text
                pass
        if structured is not None:
            structured = cut_json(structured, room, Cut())[0] if _walkable(structured) else None
        elif result.content[:1] in ("[", "{"):  # JSON as text only: whole items, still JSON
            head = cut_json_text(result.content, room, cut)
            if head is not None:
                return head, None, []
        return _text(result.content, room, cut, ""), structured, []
    given = result.blocks
    if result.content and not any(isinstance(b, TextContent) for b in given):
        given = [TextContent(text=result.content), *given]  # the text the model reads first
    blocks: list[Content] = []
    left = room
    for index, block in enumerate(given):
        size = _block_size(block)
        if size <= left:
            blocks.append(block)
            left -= size
        elif isinstance(block, TextContent):
            text = _text(block.text, max(left, 200), cut, f"block {index}: ")
            blocks.append(dataclasses.replace(block, text=text))
            left -= len(text)
        else:
            blocks.append(TextContent(text=_binary_note(block, size)))
            cut.omitted.append(f"block {index}: {_kind(block)} of {size:,} characters")
    content = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
    return content, None, blocks


def _is_json_of(result: ToolResult) -> bool:
    """Whether the text is the JSON of the structured value (so cutting the value cuts it)."""
    if not isinstance(result.structured, dict | list):
        return False
    return not result.content or result.content[:1] in "[{"


def _walkable(value: Any) -> bool:
    return isinstance(value, dict | list)


def _text(text: str, room: int, cut: Cut, where: str) -> str:
    if len(text) <= room:
        return text
    head, tail = cut_text(text, room - 100)  # the marker takes less than 100 characters
    marker = f"[… {tail - head:,} characters cut here (characters {head:,} to {tail:,}) …]"
    cut.omitted.append(f"{where}characters {head:,} to {tail:,} ({tail - head:,} characters)")
    shown = text[:head]
    return f"{shown}{'' if shown.endswith(chr(10)) else chr(10)}{marker}\n{text[tail:]}"


def _binary_note(block: Content, size: int) -> str:
    mime = getattr(block, "mime_type", None) or "unknown type"
    return f"[{_kind(block)} ({mime}, {size:,} characters of base64) left out: too large.]"


def _kind(block: Content) -> str:
    if isinstance(block, ResourceContent):
        return "binary resource"
    return block.type


def _note(full: int, cut: Cut, call_id: str, kept_until: float | None, stored: bool) -> str:
    left = "; ".join(cut.omitted[:4]) + (
        f"; and {len(cut.omitted) - 4} more" if len(cut.omitted) > 4 else ""
    )
    head = f"[Result cut to fit the context: the full result has {full:,} characters. Left out: {left}."
    if kept_until is None:
        why = "it could not be kept" if stored else "this registry keeps no results"
        return f"{head} The full result is not available ({why}).]"
    until = time.strftime("%H:%M UTC", time.gmtime(kept_until))
    return (
        f'{head} To read more, call {READ_RESULT}(call_id="{call_id}", offset=N) '
        f'or search it with {READ_RESULT}(call_id="{call_id}", find="text"); '
        f"it is kept until {until}.]"
    )


def _join(content: str, note: str) -> str:
    if not content:
        return note
    return f"{content}{note}" if content.endswith("\n") else f"{content}\n{note}"


def _with_note(blocks: list[Content], note: str) -> list[Content]:
    return [*blocks, TextContent(text=note)]


def _keep(
    result: ToolResult,
    budget: int,
    call_id: str,
    values: Mapping[str, Any],
    store: ResultStore | None,
) -> float | None:
    if store is None:
        return None
    until = time.time() + store.keep_seconds
    text = result.content
    if not text and result.structured is not None:
        text = dumps(result.structured)
    stored = StoredResult(call_id, result.tool, owner_of(values), text, budget, until)
    try:
        store.put(stored)
    except Exception:  # a full disk never fails the call: the note says it was not kept
        log.exception("could not keep the full result of call %s", call_id)
        return None
    return until
