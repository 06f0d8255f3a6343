"""Model output to calls: :func:`parse_action`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import escape
from typing import Any

from adapters.action_xml._names import from_tag, tag_maps
from adapters.action_xml._values import arguments_of
from adapters.action_xml._xml import MalformedAction, parse_block
from toolkit import ToolRegistry, ToolSpec
from toolkit.views import html_safe, html_table, html_text

__all__ = [
    "MAX_BLOCK_CHARS",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "ActionCall",
    "ParsedAction",
    "clean_text",
    "parse_action",
    "strip_actions",
]

#: The largest ACTION block read, in characters; a larger one is Malformed.
MAX_BLOCK_CHARS = 1_000_000
#: The deepest nesting of elements inside an ACTION block.
MAX_DEPTH = 16
#: The most elements an ACTION block may hold (each costs a few microseconds to build and
#: coerce; real calls hold tens).
MAX_ELEMENTS = 10_000

_OPEN = re.compile(r"<ACTION\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"</ACTION\s*>", re.IGNORECASE)
_FENCE_BEFORE = re.compile(r"\n?[ \t]*```[A-Za-z]*[ \t]*\n?[ \t]*$")
_FENCE_AFTER = re.compile(r"\n?[ \t]*```[ \t]*$")
_FENCE_CLOSE = re.compile(r"[ \t]*\n?[ \t]*```[ \t]*(?=\n|$)")


def clean_text(text: str) -> str:
    """``text`` safe to encode as UTF-8: surrogate pairs joined, lone surrogates as U+FFFD.

    Models (or the JSON decoders before them) can hand over lone surrogates such as
    ``\\ud800``; Python strings hold them, but UTF-8 cannot encode them, so the XML parser, an
    HTTP client or a log would raise later. Rule: model text is cleaned once, where it enters
    the text protocol, so nothing after :func:`parse_action` raises on it.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


@dataclass(frozen=True, slots=True)
class ActionCall:
    """One tool call from an ACTION block.

    Attributes:
        name: The tool name (mapped back from its tag, and to a known tool whose name differs
            only in case).
        arguments: The arguments, coerced by the tool's schema when it was known.
    """

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ParsedAction:
    """What a model's answer says.

    Attributes:
        response_text: The text before the first ``<ACTION>`` (the whole text without one).
        calls: The calls of the first ACTION block, in order; empty when there is none or
            when the block could not be read.
        error: What is wrong with the block and where, or ``None``. When set, nothing runs.
        copied: The error is that the answer copies an example of the instructions (a call
            or a sentence), not that the block could not be read.
    """

    response_text: str
    calls: list[ActionCall] = field(default_factory=list)
    error: str | None = None
    copied: bool = False

    @property
    def has_action(self) -> bool:
        """Whether the answer asks for calls (or tried to, see ``error``)."""
        return bool(self.calls) or self.error is not None

    def _repr_html_(self) -> str:
        return html_safe("parsed action", self._view)

    def _view(self) -> str:
        parts = []
        if self.response_text.strip():
            parts.append(html_text(self.response_text, preformatted=True))
        if self.error is not None:
            parts.append(html_text(f"ACTION block not run: {self.error}", error=True))
        if self.calls:
            rows = [
                [
                    f"<b>{escape(c.name)}</b>",
                    f"<pre style='text-align:left;margin:0;white-space:pre-wrap'>"
                    f"{escape(json.dumps(c.arguments, indent=2, default=str))}</pre>",
                ]
                for c in self.calls
            ]
            n = len(rows)
            parts.append(
                html_table(("tool", "arguments"), rows, f"{n} call" + ("" if n == 1 else "s"))
            )
        elif self.error is None:
            parts.append(html_text("no ACTION block: a final answer"))
        return "".join(parts)


def _specs(specs: ToolRegistry | Iterable[ToolSpec] | None) -> list[ToolSpec]:
    if specs is None:
        return []
    if isinstance(specs, ToolRegistry):
        return specs.specs()
    return list(specs)


def _drop_fence(fence: re.Pattern[str], text: str) -> str:
    """``text`` without a code fence at its end (looked for in the last line only: linear)."""
    cut = max(len(text) - 120, 0)
    return text[:cut] + fence.sub("", text[cut:])


def _split(text: str) -> tuple[str, str | None]:
    """``(response_text, block body or None)``."""
    opened = _OPEN.search(text)
    if opened is None:
        return text.strip(), None
    before = _drop_fence(_FENCE_BEFORE, text[: opened.start()]).strip()
    closed = _CLOSE.search(text, opened.end())
    if closed is None:
        # A missing </ACTION> is forgiven only at the very end of the output.
        body = _drop_fence(_FENCE_AFTER, text[opened.end() :])
    else:
        body = text[opened.end() : closed.start()]
    return before, body


def parse_action(
    text: str,
    specs: ToolRegistry | Iterable[ToolSpec] | None = None,
    *,
    max_chars: int = MAX_BLOCK_CHARS,
    max_depth: int = MAX_DEPTH,
    max_elements: int = MAX_ELEMENTS,
) -> ParsedAction:
    """Read a model's answer: its text for the user and the calls of its first ACTION block.

    Never raises on model output: an unreadable block gives a ``ParsedAction`` whose
    ``error`` says what is wrong and where (see :func:`malformed_observation`); lone
    surrogates are replaced (see :func:`clean_text`), so the text and arguments it returns
    always encode as UTF-8. Its time is linear in the length of ``text`` with a small
    constant, whatever the text holds (see :mod:`adapters.action_xml._xml`).

    Args:
        text: The model's answer.
        specs: The tools it may call (a registry or specs): tags are mapped back to tool
            names and values coerced by each tool's input schema. Without them names and
            values stay as written.
        max_chars: The largest ACTION block read.
        max_depth: The deepest nesting of elements read.
        max_elements: The most elements a block may hold.

    Returns:
        The parse.
    """
    response, body = _split(clean_text(text))
    if body is None:
        return ParsedAction(response)
    if len(body) > max_chars:
        return ParsedAction(
            response,
            error=f"the block is {len(body)} characters long; the limit is {max_chars}",
        )
    try:
        root = parse_block(body, max_depth=max_depth, max_elements=max_elements)
        calls = _calls(root.children, _specs(specs))
    except MalformedAction as exc:
        return ParsedAction(response, error=str(exc))
    if not calls:
        return ParsedAction(
            response,
            error="the block holds no tool call; put one element named after the tool inside it",
        )
    return ParsedAction(response, calls)


def strip_actions(text: str) -> str:
    """``text`` without its ACTION blocks (and the code fences around them).

    A text without a block comes back as it is; otherwise the pieces left are trimmed and
    joined by newlines.

    For answers that must not call tools (a final answer after the tool-call limit): the
    user never sees raw ACTION XML. An unclosed block is removed up to the end of the text.
    Linear: each block is found with one search for its start and one for its end.
    """
    text = clean_text(text)
    if _OPEN.search(text) is None:
        return text
    kept: list[str] = []
    pos = 0
    while (opened := _OPEN.search(text, pos)) is not None:
        kept.append(_drop_fence(_FENCE_BEFORE, text[pos : opened.start()]))
        closed = _CLOSE.search(text, opened.end())
        if closed is None:
            pos = len(text)
            break
        pos = closed.end()
        after = _FENCE_CLOSE.match(text, pos)
        if after is not None:
            pos = after.end()
    kept.append(text[pos:])
    return "\n".join(part.strip() for part in kept if part.strip())


def _calls(elements: list[Any], specs: list[ToolSpec]) -> list[ActionCall]:
    by_name = {s.name: s for s in specs}
    exact, folded = tag_maps(list(by_name))
    calls = []
    for element in elements:
        name = from_tag(element.tag, exact, folded)
        spec = by_name.get(name)
        calls.append(ActionCall(name, arguments_of(element, spec.input_schema if spec else None)))
    return calls
