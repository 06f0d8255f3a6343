"""Cutting a value down to a number of characters: text by head and tail, JSON by structure.

Every function here does work in proportion to the room it is given, not to the size of what
it cuts: a 50 MB list is cut by serializing its first items until the room is full, a 50 MB
string by slicing. Sizes are the lengths of compact JSON text (``toolkit.schema._serialize``'s
``dumps``: no spaces, non-ASCII kept), the form a model reads.

* :func:`cut_text` — where to cut a text into a head and a tail, at line breaks when one is
  near.
* :func:`cut_json` — a JSON value that stays valid, and its text: lists keep their first items,
  objects keep every key (their values share the room), strings keep their head and tail.
* :func:`cut_json_text` — JSON that came as text only: its head, whole items or pairs, closed.
* :func:`json_size` — the exact JSON length of a value, or ``limit + 1`` as soon as it is
  known to be longer than ``limit``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from toolkit.schema._serialize import dumps

__all__ = ["Cut", "cut_json", "cut_json_text", "cut_text", "json_size", "list_prefix"]

#: How far (characters) a cut may move to land on a line break.
_LINE_SLACK = 240


@dataclass(slots=True)
class Cut:
    """What a cut left out, in words a model reads (``"$.rows: items 20 to 49999"``)."""

    omitted: list[str] = field(default_factory=list)


def cut_text(text: str, room: int) -> tuple[int, int]:
    """Where the head of ``text`` ends and its tail starts, so both fill ``room`` characters.

    Two thirds of the room go to the head, one third to the tail; each end moves to a line
    break when one is within a few lines' reach (logs, CSV and code stay whole lines).
    """
    room = max(0, room)
    head = room * 2 // 3
    tail_start = len(text) - (room - head)
    line = text.rfind("\n", max(0, head - _LINE_SLACK), head)
    if line > 0:
        head = line + 1
    line = text.find("\n", tail_start, tail_start + _LINE_SLACK)
    if 0 <= line < len(text) - 1:
        tail_start = line + 1
    return head, max(tail_start, head)


def json_size(value: Any, limit: int) -> int:
    """The length of ``value``'s compact JSON text, or ``limit + 1`` once it is past ``limit``.

    Stops as soon as the limit is passed, so a huge value costs about ``limit`` characters'
    worth of work.
    """
    if isinstance(value, str):
        return limit + 1 if len(value) + 2 > limit else len(dumps(value))
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, dict):
        if 5 * len(value) + 1 > limit:  # "":0 and a comma each: past the limit already
            return limit + 1
        total = 1 + len(value)  # braces and commas (one short for an empty object: fine)
        for key, item in value.items():
            if total > limit:
                return limit + 1
            total += len(dumps(str(key))) + 1 + json_size(item, limit - total)
        return total if total <= limit else limit + 1
    if isinstance(value, list | tuple):
        if 2 * len(value) + 1 > limit:  # an item and a comma each: past the limit already
            return limit + 1
        count, used = list_prefix(value, limit)
        return used if count == len(value) else limit + 1
    return len(dumps(value))


def list_prefix(
    items: list[Any] | tuple[Any, ...], room: int, pieces: list[str] | None = None
) -> tuple[int, int]:
    """How many of the first ``items`` fit in ``room`` characters of a JSON list, and its size.

    One item is measured exactly (stopping early if it is huge), then as many items as its
    size suggests are serialized at once; a chunk that does not fit is shrunk in proportion to
    how far it ran over. A list of similar rows thus costs a few serializations of about
    ``room`` characters in all. ``pieces``, when given, receives the JSON text of the items
    that fit (without the brackets), ready to be joined with commas.
    """
    used, i, count = 2, 0, len(items)
    while i < count:
        remaining = room - used - (1 if i else 0)
        size = json_size(items[i], remaining)
        if size > remaining:
            break
        if pieces is not None:
            pieces.append(dumps(items[i]))
        used += size + (1 if i else 0)
        i += 1
        step = (room - used) // (size + 1)
        if step > 1:  # later items may be longer (growing ids): measure the last one it takes
            size = max(size, json_size(items[min(count - 1, i + step)], room))
            step = (room - used) // (size + 1)
        while step > 1 and i < count:
            text = dumps(items[i : i + step])
            if used + len(text) - 1 <= room:  # its items, their commas, one comma before
                used += len(text) - 1
                i += min(step, count - i)
                if pieces is not None:
                    pieces.append(text[1:-1])
                step = (room - used) // (size + 1)
            else:
                step = step * (room - used) // len(text) * 9 // 10
    return i, used


def cut_json(value: Any, room: int, cut: Cut, path: str = "$") -> tuple[Any, str]:
    """``value`` cut to about ``room`` characters of JSON, and the compact JSON text of it.

    The value keeps its shape and stays valid JSON. Its text is built from the pieces
    serialized while measuring, so nothing is serialized twice. The text may run a little past
    ``room`` (markers, a first item that must be cut too): the caller checks it and cuts again
    with less room when it does.
    """
    if isinstance(value, str):
        shown = _cut_string(value, room, cut, path)
        return shown, dumps(shown)
    if isinstance(value, dict):
        return _cut_object(value, room, cut, path)
    if isinstance(value, list | tuple):
        return _cut_list(value, room, cut, path)
    return value, dumps(value)


def _cut_string(text: str, room: int, cut: Cut, path: str) -> str:
    if json_size(text, room) <= room:
        return text
    keep = max(0, room - 48)
    for _ in range(4):  # escapes make JSON text longer than the string: shrink until it fits
        head = keep * 2 // 3
        tail = keep - head
        left_out = len(text) - head - tail
        shown = f"{text[:head]}…[{left_out:,} characters cut]…{text[len(text) - tail :]}"
        size = len(dumps(shown))
        if size <= room or keep == 0:
            cut.omitted.append(f"{path}: {left_out:,} of {len(text):,} characters")
            return shown
        keep = max(0, keep * room // size - 1)
    cut.omitted.append(f"{path}: {len(text):,} characters")
    return ""


def _cut_list(
    items: list[Any] | tuple[Any, ...], room: int, cut: Cut, path: str
) -> tuple[list[Any], str]:
    count = len(items)
    pieces: list[str] = []
    fit, _ = list_prefix(items, room, pieces)
    kept = list(items[:fit])
    if fit < count and not kept and isinstance(items[0], dict | list | tuple | str):
        first, text = cut_json(items[0], room - 2, cut, f"{path}[0]")  # the one huge item
        kept, pieces, fit = [first], [text], 1
    if fit < count:
        cut.omitted.append(f"{path}: items {fit:,} to {count - 1:,} of {count:,}")
    return kept, f"[{','.join(pieces)}]"


def _cut_object(obj: dict[str, Any], room: int, cut: Cut, path: str) -> tuple[dict[str, Any], str]:
    keys = [str(k) for k in obj]
    names = [dumps(k) for k in keys]
    base = 2 + sum(len(name) + 2 for name in names)  # "key": and a comma each
    if base > room:  # not even the keys fit: the first keys that do, with their values
        return _first_keys(obj, room, cut, path)
    left = room - base
    share = left // max(1, len(keys))
    sizes = [json_size(v, share) for v in obj.values()]
    big = sum(1 for size in sizes if size > share)
    left -= sum(size for size in sizes if size <= share)
    out: dict[str, Any] = {}
    parts: list[str] = []
    for key, name, value, size in zip(keys, names, obj.values(), sizes, strict=True):
        if size > share:
            out[key], text = cut_json(value, left // big, cut, f"{path}.{key}")
        else:
            out[key], text = value, dumps(value)
        parts.append(f"{name}:{text}")
    return out, f"{{{','.join(parts)}}}"


def _first_keys(obj: dict[str, Any], room: int, cut: Cut, path: str) -> tuple[dict[str, Any], str]:
    out: dict[str, Any] = {}
    parts: list[str] = []
    used = 2
    for key, value in obj.items():
        name = dumps(str(key))
        size = len(name) + 2 + json_size(value, room - used)
        if used + size > room:
            break
        out[str(key)] = value
        parts.append(f"{name}:{dumps(value)}")
        used += size
    cut.omitted.append(f"{path}: {len(obj) - len(out):,} of {len(obj):,} keys")
    return out, f"{{{','.join(parts)}}}"


_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def cut_json_text(text: str, room: int, cut: Cut) -> str | None:
    """The head of JSON ``text`` (a list or an object) that fits ``room``, closed to stay valid.

    For a result that came as JSON text without a structured copy (a remote server's text
    block): whole items of a list, or whole ``key: value`` pairs of an object, are kept as they
    were written, up to the room, and the brackets closed. Only the first ``room`` characters
    are read, so a huge result costs no more than a small one. ``None`` when the text is not a
    JSON list or object, or not even its first item fits.
    """
    start = _SPACE.match(text).end()  # type: ignore[union-attr]
    opener = text[start : start + 1]
    if opener not in ("[", "{"):
        return None
    window = text[: start + room - 1]  # a value running past the room does not parse here
    end, count, pos = start + 1, 0, start + 1
    try:
        while True:
            pos = _SPACE.match(window, pos).end()  # type: ignore[union-attr]
            if window[pos : pos + 1] in ("]", "}"):  # the whole value fits: nothing to cut
                return None
            if count:
                if window[pos : pos + 1] != ",":
                    break
                pos = _SPACE.match(window, pos + 1).end()  # type: ignore[union-attr]
            if opener == "{":
                _, pos = _DECODER.raw_decode(window, pos)  # the key
                pos = _SPACE.match(window, pos).end()  # type: ignore[union-attr]
                if window[pos : pos + 1] != ":":
                    break
                pos = _SPACE.match(window, pos + 1).end()  # type: ignore[union-attr]
            _, pos = _DECODER.raw_decode(window, pos)
            end, count = pos, count + 1
    except (ValueError, RecursionError):  # the next value runs past the room (or is broken)
        pass
    if not count:
        return None
    what = "items" if opener == "[" else "keys"
    cut.omitted.append(f"the {what} after the first {count:,} (characters {end:,} on)")
    return f"{text[start:end]}{']' if opener == '[' else '}'}"
