"""The ``<ACTION>`` block as a tree: repair what models get wrong, then parse with defusedxml.

Models write ``a < b && c`` in values and forget to escape. When a block does not parse as it
is, a repair escapes every ``&`` that does not start a predefined entity and every ``<`` that
does not start a tag, a comment, a CDATA section or a declaration. The repaired text goes to
defusedxml's SAX parser, which refuses DTDs, entity declarations and external references, so
nothing is expanded or fetched (the repair already refuses ``<!DOCTYPE``, ``<!ENTITY`` and
``<?...?>`` with a clearer message; the parser is the second line), and which enforces the
nesting depth.

Rule: reading a block costs time linear in its length with a small constant, whatever it
holds. Work done in Python is per tag, entity, CDATA section or comment (each several
characters long), never per character: runs of stray ``<`` and ``&`` are escaped by
``str.replace`` between the tokens one regular expression finds (its patterns look ahead to
the next ``<`` or ``>`` at most), and the parser hands over text in buffered runs rather than
one callback per entity.
"""

from __future__ import annotations

import re
import xml.sax
from dataclasses import dataclass, field
from typing import Any
from xml.sax.handler import ContentHandler, property_lexical_handler

try:
    from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
    from defusedxml.expatreader import DefusedExpatParser  # type: ignore[import-untyped]
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        "adapters.action_xml parses model output with defusedxml, which is not installed. "
        "Install the extra: pip install 'mcp-toolkit[xml]'."
    ) from exc

__all__ = ["MalformedAction", "Node", "parse_block"]

#: What the repair keeps as written: tags (whose attributes run to their ``>``, never past
#: another ``<``) and predefined or numeric entities. Every other ``<`` and ``&`` is escaped.
_KEEP = re.compile(
    r"</?[A-Za-z_][\w.\-]*(?:\s[^<>]*)?/?>|&(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});"
)
#: Where the plain-text scan must stop: CDATA sections, comments, declarations.
_MARKUP = re.compile(r"<[!?]")


class MalformedAction(Exception):
    """The ACTION block cannot be read; the message says what and where."""


@dataclass(slots=True)
class Node:
    """One element: its tag, its text pieces (``(text, is_cdata)``) and its child elements."""

    tag: str
    parts: list[tuple[str, bool]] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)

    def text(self) -> str:
        """The value text: trimmed, except what a CDATA section holds, which is kept exactly."""
        parts = self.parts
        if not parts:
            return ""
        if len(parts) == 1 and not parts[0][1]:
            return parts[0][0].strip()
        if not any(cdata for _, cdata in parts):
            return "".join(t for t, _ in parts).strip()
        # Merge runs of plain text; whitespace-only runs outside the CDATA are layout.
        runs: list[list[Any]] = []
        for text, cdata in parts:
            if runs and runs[-1][1] == cdata:
                runs[-1][0] += text
            else:
                runs.append([text, cdata])
        kept = [(t, c) for t, c in runs if c or t.strip()]
        texts = [t for t, _ in kept]
        if not kept[0][1]:
            texts[0] = texts[0].lstrip()
        if not kept[-1][1]:
            texts[-1] = texts[-1].rstrip()
        return "".join(texts)

    def raw_text(self) -> str:
        """The value text exactly as written (untrimmed)."""
        return "".join(t for t, _ in self.parts)

    def has_loose_text(self) -> bool:
        """Whether text other than layout whitespace sits beside child elements."""
        return any(c or t.strip() for t, c in self.parts)


def _escape(text: str) -> str:
    # Text between kept tokens is escaped with str.replace (C, no per-match work); the loop
    # runs once per tag or entity, each several characters long.
    out: list[str] = []
    pos = 0
    for kept in _KEEP.finditer(text):
        out.append(text[pos : kept.start()].replace("&", "&amp;").replace("<", "&lt;"))
        out.append(kept.group())
        pos = kept.end()
    out.append(text[pos:].replace("&", "&amp;").replace("<", "&lt;"))
    return "".join(out)


def repair(body: str) -> str:
    """``body`` with stray ``&`` and ``<`` escaped and comments dropped (linear, see above).

    Raises:
        MalformedAction: an unclosed CDATA section or comment, a declaration or a processing
            instruction.
    """
    out: list[str] = []
    pos = 0
    while (found := _MARKUP.search(body, pos)) is not None:
        i = found.start()
        out.append(_escape(body[pos:i]))
        if body.startswith("<![CDATA[", i):
            end = body.find("]]>", i + 9)
            if end < 0:
                raise MalformedAction(
                    f"a <![CDATA[ section opened at offset {i} is never closed with ]]>"
                )
            out.append(body[i : end + 3])
            pos = end + 3
        elif body.startswith("<!--", i):
            end = body.find("-->", i + 4)
            if end < 0:
                raise MalformedAction(f"a comment opened at offset {i} is never closed")
            pos = end + 3
        elif body.startswith("<!", i):
            raise MalformedAction(
                f"declarations such as <!DOCTYPE or <!ENTITY are not allowed (at offset {i})"
            )
        else:
            raise MalformedAction(
                f"processing instructions (<?...?>) are not allowed (at offset {i})"
            )
    out.append(_escape(body[pos:]))
    return "".join(out)


class _Builder(ContentHandler):
    """SAX events to :class:`Node` objects, CDATA sections marked."""

    def __init__(self, max_depth: int, max_elements: int) -> None:
        super().__init__()
        self.max_depth = max_depth
        self.max_elements = max_elements
        self.elements = 0
        self.stack: list[Node] = []
        self.root: Node | None = None
        self.in_cdata = False

    def startElement(self, name: str, attrs: object) -> None:
        if len(self.stack) > self.max_depth:  # the ACTION element itself is not counted
            raise MalformedAction(f"elements are nested more than {self.max_depth} levels deep")
        self.elements += 1
        if self.elements > self.max_elements:
            raise MalformedAction(
                f"the block holds more than {self.max_elements} elements; send fewer items "
                "per call, or a long list as JSON in <![CDATA[...]]>"
            )
        node = Node(name)  # attributes are ignored
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            self.root = node
        self.stack.append(node)

    def endElement(self, name: str) -> None:
        self.stack.pop()

    def characters(self, content: str) -> None:
        self.stack[-1].parts.append((content, self.in_cdata))

    # Lexical handler (CDATA boundaries and comments).
    def startCDATA(self) -> None:
        self.in_cdata = True

    def endCDATA(self) -> None:
        self.in_cdata = False

    def comment(self, content: str) -> None:
        return None

    def startDTD(self, name: str, public_id: str, system_id: str) -> None:
        return None

    def endDTD(self) -> None:
        return None


class _Parser(DefusedExpatParser):  # type: ignore[misc]
    """defusedxml's SAX parser (no DTD, entities or external references), text buffered."""

    def __init__(self) -> None:
        super().__init__(forbid_dtd=True, forbid_entities=True, forbid_external=True)

    def reset(self) -> None:
        super().reset()
        # One callback per run of text, not one per entity (``&lt;&lt;...`` stays linear
        # with a small constant).
        self._parser.buffer_text = True
        self._parser.buffer_size = 1 << 16


def _parse(text: str, max_depth: int, max_elements: int) -> Node:
    builder = _Builder(max_depth, max_elements)
    parser = _Parser()
    parser.setContentHandler(builder)
    parser.setProperty(property_lexical_handler, builder)
    parser.feed("<ACTION>" + text + "</ACTION>")
    parser.close()
    assert builder.root is not None
    return builder.root


def parse_block(body: str, *, max_depth: int = 16, max_elements: int = 10_000) -> Node:
    """Parse the inside of an ACTION block into a ``Node`` tagged ``ACTION``.

    Well-formed XML is parsed as it is; only when that fails is the block repaired (stray
    ``&`` and ``<`` escaped) and parsed again, so the usual answer pays for one parse.

    Raises:
        MalformedAction: the block is not well-formed (after repair), declares a DTD or
            entities, nests too deeply or holds more than ``max_elements`` elements.
    """
    try:
        return _parse(body, max_depth, max_elements)
    except (xml.sax.SAXParseException, DefusedXmlException):
        pass
    repaired = repair(body)
    try:
        return _parse(repaired, max_depth, max_elements)
    except xml.sax.SAXParseException as exc:
        line, column = exc.getLineNumber() or 1, exc.getColumnNumber() or 0
        if line == 1:
            column = max(column - len("<ACTION>"), 0)
        raise MalformedAction(
            f"{exc.getMessage()} at line {line}, column {column + 1} of the block"
        ) from None
    except DefusedXmlException:
        raise MalformedAction(
            "DTDs, entity declarations and external references are not allowed"
        ) from None
