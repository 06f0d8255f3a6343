"""What changed between two tool definitions, said without repeating the server's text.

A change is named by where it is (``inputSchema.properties.cc added``, ``description
changed``, ``annotations.readOnlyHint changed (false -> true)``); strings the server wrote are
never quoted, since they are what is not trusted. Keys are shown ASCII-escaped and shortened.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["changes", "shown"]

_MAX_KEY = 40


def changes(old: Any, new: Any, *, limit: int = 6) -> list[str]:
    """Where ``new`` differs from ``old`` (at most ``limit`` places, then how many more)."""
    found: list[str] = []
    _walk(old, new, "", found)
    if len(found) > limit:
        found = [*found[:limit], f"{len(found) - limit} more"]
    return found


def _walk(old: Any, new: Any, path: str, found: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            where = f"{path}.{_key(key)}" if path else _key(key)
            if key not in old:
                found.append(f"{where} added")
            elif key not in new:
                found.append(f"{where} removed")
            else:
                _walk(old[key], new[key], where, found)
        return
    if old == new and type(old) is type(new):
        return
    if isinstance(old, list) and isinstance(new, list):
        gained = [v for v in new if v not in old]
        lost = [v for v in old if v not in new]
        what = (
            "widened" if gained and not lost else "narrowed" if lost and not gained else "changed"
        )
        found.append(f"{path} {what}")
        return
    if _scalar(old) and _scalar(new):
        found.append(f"{path} changed ({shown(old)} -> {shown(new)})")
        return
    found.append(f"{path} changed")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float)


def shown(value: Any) -> str:
    """A JSON value as one line of ASCII (the server's strings cannot reach a terminal raw)."""
    return json.dumps(value, ensure_ascii=True)


def _key(key: Any) -> str:
    text = json.dumps(str(key), ensure_ascii=True)[1:-1]
    return text if len(text) <= _MAX_KEY else text[: _MAX_KEY - 1] + "…"
