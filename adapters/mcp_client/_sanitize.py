"""Text a remote server wrote, cleaned before any model reads it.

A tool's name, title, description and every string of its schemas may hide instructions from
the person who approved the tool while a model still reads them: zero-width characters, Unicode
tag characters (invisible ASCII), bidirectional controls that reorder what a screen shows, ANSI
escapes that rewrite a terminal, HTML comments that a rendered page leaves out. They are removed
here, and what was found is named so the warning can say it.

Every pass is linear in the text's length: characters are dropped with ``str.translate``,
escapes by one pattern without nested repetition, comments by ``str.find``.
"""

from __future__ import annotations

import re
from typing import Any

import mcp_types

__all__ = ["clean_text", "clean_tool", "clean_value"]

ZERO_WIDTH = "zero-width characters"
TAGS = "invisible tag characters"
BIDI = "bidirectional controls"
ANSI = "ANSI escapes"
CONTROL = "control characters"
COMMENT = "HTML comments"

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad\u034f"
_BIDI = "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROL = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r")

_KIND: dict[int, str] = {
    **{ord(c): ZERO_WIDTH for c in _ZERO_WIDTH},
    **{c: TAGS for c in range(0xE0000, 0xE0080)},
    **{ord(c): BIDI for c in _BIDI},
    **{ord(c): CONTROL for c in _CONTROL},
}
_DROP: dict[int, None] = dict.fromkeys(_KIND)
_ASCII_DROP = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# CSI (ESC [ or the C1 byte), OSC (ESC ] ... BEL or ESC \), and two-character escapes.
_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
)


def clean_text(text: str) -> tuple[str, frozenset[str]]:
    """``text`` without hidden content, and the kinds of hidden content it had.

    Args:
        text: What a remote server wrote.

    Returns:
        The cleaned text (``text`` itself when it was clean) and the kinds removed
        (``"zero-width characters"``, ``"bidirectional controls"``, ``"ANSI escapes"``…).
    """
    if text.isascii() and "<!--" not in text and not _ASCII_DROP.search(text):
        return text, frozenset()  # the common case: plain printable ASCII
    found: set[str] = set()
    if "<!--" in text:
        text = _without_comments(text)
        found.add(COMMENT)
    if "\x1b" in text or "\x9b" in text:
        stripped = _ANSI.sub("", text)
        if stripped != text:
            found.add(ANSI)
            text = stripped
    cleaned = text.translate(_DROP)
    if cleaned != text:
        found.update(_KIND[ord(c)] for c in set(text) - set(cleaned))
    return cleaned, frozenset(found)


def _without_comments(text: str) -> str:
    """``text`` without ``<!-- ... -->``; an unclosed comment hides the rest, so it goes too."""
    parts: list[str] = []
    start = 0
    while (open_at := text.find("<!--", start)) != -1:
        parts.append(text[start:open_at])
        close_at = text.find("-->", open_at + 4)
        if close_at == -1:
            return "".join(parts)
        start = close_at + 3
    parts.append(text[start:])
    return "".join(parts)


def clean_value(value: Any) -> tuple[Any, frozenset[str]]:
    """A JSON value with every string (object keys too) cleaned, and the kinds removed."""
    if isinstance(value, str):
        return clean_text(value)
    found: set[str] = set()
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            new_key, key_found = clean_text(key) if isinstance(key, str) else (key, frozenset())
            out[new_key], item_found = clean_value(item)
            found |= key_found | item_found
        return out, frozenset(found)
    if isinstance(value, list):
        items = []
        for item in value:
            new, item_found = clean_value(item)
            items.append(new)
            found |= item_found
        return items, frozenset(found)
    return value, frozenset()


def clean_tool(tool: mcp_types.Tool) -> tuple[mcp_types.Tool, frozenset[str]]:
    """The tool as a model may read it: name, title, description, schemas and annotation
    title cleaned; the kinds of hidden content removed (empty: ``tool`` itself is returned).
    """
    data = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": tool.annotations.title if tool.annotations else None,
    }
    cleaned, found = clean_value(data)
    if not found:
        return tool, frozenset()
    hints = tool.annotations
    if hints is not None:
        cleaned["annotations"] = hints.model_copy(update={"title": cleaned["annotations"]})
    return tool.model_copy(update=cleaned), found
