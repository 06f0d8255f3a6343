"""Cutting a value down to a number of characters: text by head and tail, JSON by structure.

Every function here does work in proportion to the room it is given, not to the size of what
it cuts: a 50 MB list is cut by serializing its first items until the room is full, a 50 MB
string by slicing. Sizes are the lengths of compact JSON text (``toolkit.schema._serialize``'s
``dumps``: no spaces, non-ASCII kept), the form a model reads.

* :func:`cut_text` — where to cut a text into a head and a tail, at line breaks when one is
  near.
* :func:`cut_json` — a JSON value that stays valid: lists keep their first items, objects keep
  every key (their values share the room), strings keep their head and tail.
* :func:`json_size` — the exact JSON length of a value, or ``limit + 1`` as soon as it is
  known to be longer than ``limit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolkit.schema._serialize import dumps

__all__ = ["Cut", "cut_json", "cut_text", "json_size"]

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
    if isinstance(value, dict):
        total = 1 + len(value)  # braces and commas (one short for an empty object: fine)
        for key, item in value.items():
            if total > limit:
                return limit + 1
            total += len(dumps(str(key))) + 1 + json_size(item, limit - total)
        return total if total <= limit else limit + 1
    if isinstance(value, list | tuple):
        total = 1 + max(1, len(value))
        for item in value:
            if total > limit:
                return limit + 1
            total += json_size(item, limit - total)
        return total if total <= limit else limit + 1
    return len(dumps(value))


def cut_json(value: Any, room: int, cut: Cut, path: str = "$") -> Any:
    """``value`` cut to about ``room`` characters of JSON, still valid JSON of the same shape.

    The result may run a little past ``room`` (markers, a first item that must be cut too);
    the caller checks the final text and cuts again with less room when it does.
    """
    if isinstance(value, str):
        return _cut_string(value, room, cut, path)
    if isinstance(value, dict):
        return _cut_object(value, room, cut, path)
    if isinstance(value, list | tuple):
        return _cut_list(list(value), room, cut, path)
    return value


def _cut_string(text: str, room: int, cut: Cut, path: str) -> str:
    full = json_size(text, room)
    if full <= room:
        return text
    keep = max(0, room - 48)
    for _ in range(4):  # escapes make JSON text longer than the string: shrink until it fits
        head = keep * 2 // 3
        tail = keep - head
        left_out = len(text) - head - tail
        shown = f"{text[:head]}…[{left_out:,} characters cut]…{text[len(text) - tail :]}"
        if len(dumps(shown)) <= room or keep == 0:
            cut.omitted.append(f"{path}: {left_out:,} of {len(text):,} characters")
            return shown
        keep = keep * room // max(len(dumps(shown)), 1) - 1
        keep = max(keep, 0)
    cut.omitted.append(f"{path}: {len(text):,} characters")
    return ""


def _cut_list(items: list[Any], room: int, cut: Cut, path: str) -> list[Any]:
    kept: list[Any] = []
    used, step, i, count = 2, 1, 0, len(items)
    while i < count:
        remaining = room - used - (1 if kept else 0)
        if step == 1:
            size = json_size(items[i], remaining)
            if size <= remaining:
                kept.append(items[i])
                used += size + (1 if len(kept) > 1 else 0)
                i, step = i + 1, 2
                continue
            if not kept and isinstance(items[i], dict | list | tuple | str) and remaining > 64:
                kept.append(cut_json(items[i], remaining, cut, f"{path}[{i}]"))
                i += 1
            break
        chunk = items[i : i + step]
        size = len(dumps(chunk)) - 2
        if size <= remaining:
            kept.extend(chunk)
            used += size + (1 if len(kept) > len(chunk) else 0)
            i += len(chunk)
            step = min(step * 2, 8192)
        else:
            step = max(1, step // 4)
    if i < count:
        cut.omitted.append(f"{path}: items {i:,} to {count - 1:,} of {count:,}")
    return kept


def _cut_object(obj: dict[str, Any], room: int, cut: Cut, path: str) -> dict[str, Any]:
    keys = [str(k) for k in obj]
    key_room = [len(dumps(k)) + 2 for k in keys]  # "key": and a comma
    base = 2 + sum(key_room)
    if base > room:  # not even the keys fit: the first keys that do, with cut values
        return _first_keys(obj, room, cut, path)
    left = room - base
    share = left // max(1, len(keys))
    sizes = {k: json_size(v, share) for k, v in zip(keys, obj.values(), strict=True)}
    big = [k for k in keys if sizes[k] > share]
    left -= sum(size for k, size in sizes.items() if k not in big)
    out: dict[str, Any] = {}
    for key, value in zip(keys, obj.values(), strict=True):
        if sizes[key] > share:
            allot = left // len(big)
            out[key] = cut_json(value, allot, cut, f"{path}.{key}")
        else:
            out[key] = value
    return out


def _first_keys(obj: dict[str, Any], room: int, cut: Cut, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    used = 2
    for key, value in obj.items():
        size = len(dumps(str(key))) + 2 + json_size(value, room - used)
        if used + size > room:
            break
        out[str(key)] = value
        used += size
    cut.omitted.append(f"{path}: {len(obj) - len(out):,} of {len(obj):,} keys")
    return out
