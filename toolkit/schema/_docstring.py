"""Docstring parsing: the tool description and the parameter descriptions.

Google, NumPy, reST (Sphinx) and Epydoc styles are auto-detected: each parser is tried and the
one that finds the most sections wins (docstring-parser's own rule). On top of
docstring-parser's Google parser we also read ``Keyword Args:``, ``Keyword Arguments:``,
``Other Parameters:`` and ``Kwargs:`` as parameter sections, and a docstring that opens
directly with a section (``Args:``, ``Parameters``, ``:param``…) has no summary instead of a
summary that reads "Args:".

What reaches the model (see :attr:`DocstringInfo.description`): the summary and the body,
including free-form paragraphs such as ``Note:``, which often carry instructions for the model
("do not retry"). ``Args``/``Raises``/``Examples``/``Yields`` blocks never do: parameters are
described in the schema, and exceptions and examples are for the developer. A short
``Returns:`` sentence (:data:`MAX_RETURNS_LENGTH` characters at most) is appended as
``"Returns: ..."`` because it tells the model what it will get; a long one is dropped.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, partial

import docstring_parser
from docstring_parser.common import Docstring, DocstringStyle, ParseError
from docstring_parser.google import DEFAULT_SECTIONS, GoogleParser, Section, SectionType

__all__ = ["MAX_RETURNS_LENGTH", "DocstringInfo", "parse_docstring"]

#: Longest ``Returns:`` text still appended to the description.
MAX_RETURNS_LENGTH = 160

_EXTRA_PARAM_SECTIONS = ("Keyword Args", "Keyword Arguments", "Other Parameters", "Kwargs")
_GOOGLE = GoogleParser(
    [*DEFAULT_SECTIONS, *(Section(t, "param", SectionType.MULTIPLE) for t in _EXTRA_PARAM_SECTIONS)]
)
_OTHER_STYLES = (DocstringStyle.REST, DocstringStyle.NUMPYDOC, DocstringStyle.EPYDOC)

# A docstring that opens with a section has no summary line.
_OPENS_WITH_SECTION = re.compile(
    r"^\s*(?:(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters"
    r"|Kwargs|Returns|Raises|Yields)\s*:?\s*\n|Parameters\s*\n\s*-{3,}|[:@](?:param|type|return)"
    r"\b)"
)
_SECTION_HEADER_LINE = re.compile(r"^[A-Z][A-Za-z ]{2,24}:\s*$")
_REST_MARKER = re.compile(r"^\s*:(?:param|type|returns?|raises?|rtype)\b", re.MULTILINE)
_EPYDOC_MARKER = re.compile(r"^\s*@(?:param|type|returns?|raises?|rtype)\b", re.MULTILINE)
_NUMPY_MARKER = re.compile(r"^\s*[A-Z][A-Za-z ]+\n\s*-{3,}\s*$", re.MULTILINE)
_GOOGLE_MARKER = re.compile(r"^\s*[A-Z][A-Za-z ]{2,24}:\s*\n", re.MULTILINE)
_PLACEHOLDER = "\u2063"  # invisible separator: a summary that cannot occur in real text


@dataclass(frozen=True, slots=True)
class DocstringInfo:
    """What a docstring says, split for a tool.

    Attributes:
        description: Summary and body for the model (see the module docstring for what is kept).
        params: Parameter descriptions by parameter name.
        returns: The ``Returns`` text, if any (kept even when too long for ``description``).
        returns_keys: Descriptions of the keys the ``Returns`` section names, one a line as
            ``sent_status (bool): ...`` or ``- sent_status: ...`` (for the output schema).
    """

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None
    returns_keys: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> DocstringInfo:
    """Parse a docstring in any supported style.

    Args:
        doc: The docstring (``inspect.getdoc`` output or raw ``__doc__``); ``None`` is fine.

    Returns:
        The description for the model and the parameter descriptions.
    """
    if not doc or not doc.strip():
        return DocstringInfo()
    return _parse_cached(doc)


@lru_cache(maxsize=2048)
def _parse_cached(doc: str) -> DocstringInfo:
    text = _reindent_opening_section(inspect.cleandoc(doc))
    headless = bool(_OPENS_WITH_SECTION.match(text))
    parsed = _best_parse(f"{_PLACEHOLDER}\n\n{text}" if headless else text)
    parts = [_plain(p) for p in (parsed.short_description, parsed.long_description) if p]
    if headless and parts and parts[0] == _PLACEHOLDER:
        parts = parts[1:]
    returns = (
        _tidy(parsed.returns.description) if parsed.returns and parsed.returns.description else None
    )
    if returns and len(returns) <= MAX_RETURNS_LENGTH:
        parts.append(f"Returns: {returns}")
    params = {
        p.arg_name.strip("*"): _tidy(p.description)
        for p in parsed.params
        if p.description and p.description.strip()
    }
    keys = _returned_keys(parsed.returns.description) if parsed.returns else {}
    return DocstringInfo(
        description="\n\n".join(parts).strip(), params=params, returns=returns, returns_keys=keys
    )


# "sent_status (bool): Whether..." or "- sent_status: Whether..." (a bare "Name: text" line is
# prose as often as a key, so it needs the type or the bullet).
_KEY_LINE = re.compile(
    r"^\s*(?:(?P<bullet>[-*]\s+)(?P<b_name>[A-Za-z_]\w*)(?:\s*\([^)]*\))?"
    r"|(?P<t_name>[A-Za-z_]\w*)\s*\([^)]*\))\s*:\s*(?P<text>.*)$"
)


def _returned_keys(text: str | None) -> dict[str, str]:
    """Key descriptions a ``Returns`` section lists; lines indented deeper continue a key."""
    keys: dict[str, list[str]] = {}
    last: list[str] | None = None
    indent = 0
    for line in (text or "").splitlines():
        depth = len(line) - len(line.lstrip())
        match = _KEY_LINE.match(line)
        if match:
            name = match.group("b_name") or match.group("t_name")
            last, indent = keys.setdefault(name, []), depth
            last.append(match.group("text").strip())
        elif last is not None and line.strip() and depth > indent:
            last.append(line.strip())
        else:
            last = None
    return {name: _plain(" ".join(words).strip()) for name, words in keys.items() if any(words)}


def _best_parse(text: str) -> Docstring:
    """Parse with the style the text shows; when unclear, the parse with the most sections."""
    style = _evident_style(text)
    if style is not None:
        try:
            return (
                _GOOGLE.parse(text)
                if style is DocstringStyle.GOOGLE
                else _style_parser(style)(text)
            )
        except ParseError:
            pass
    best: Docstring | None = None
    for parse in (_GOOGLE.parse, *(_style_parser(s) for s in _OTHER_STYLES)):
        try:
            candidate = parse(text)
        except ParseError:
            continue
        if best is None or len(candidate.meta) > len(best.meta):
            best = candidate
    return best if best is not None else docstring_parser.parse(text)


def _evident_style(text: str) -> DocstringStyle | None:
    """The style the text's markers show (trying every parser costs 4x as much)."""
    if _REST_MARKER.search(text):
        return DocstringStyle.REST
    if _EPYDOC_MARKER.search(text):
        return DocstringStyle.EPYDOC
    if _NUMPY_MARKER.search(text):
        return DocstringStyle.NUMPYDOC
    if _GOOGLE_MARKER.search(text):
        return DocstringStyle.GOOGLE
    return None


def _style_parser(style: DocstringStyle) -> Callable[[str], Docstring]:
    return partial(docstring_parser.parse, style=style)


def _reindent_opening_section(text: str) -> str:
    """Restore the indentation ``cleandoc`` removes when ``Args:`` is on the opening quote line.

    There, the header has no indentation in ``__doc__`` and every following line shares one, so
    ``cleandoc`` flattens the section body to the header's level and Google parsing fails.
    """
    first, _, rest = text.partition("\n")
    if not rest or not _SECTION_HEADER_LINE.match(first) or rest[:1].isspace():
        return text
    return first + "\n" + "\n".join(f"    {line}" if line else line for line in rest.split("\n"))


def _tidy(text: str) -> str:
    """Join wrapped lines inside paragraphs; keep paragraph breaks."""
    paragraphs = re.split(r"\n\s*\n", _plain(text).strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


# ":class:`~pkg.Bin`" / ":func:`other <pkg.other>`" and "``literal``": markup for Sphinx, noise
# for a model. Roles become their target's plain name, double backticks single ones.
_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`(?:~[\w.]*\.)?([^`<]+?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``([^`]+)``")


def _plain(text: str) -> str:
    """``text`` without reST roles and with Markdown-style inline literals."""
    return _LITERAL.sub(r"`\1`", _ROLE.sub(r"`\1`", text))
