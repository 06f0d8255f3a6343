"""Tool and parameter names as XML tags, and back.

Tool names follow ``^[a-zA-Z0-9_-]{1,64}$``; a name that starts with a digit or a hyphen is
not an XML name, and JSON property names may hold any character. Such a name gets a tag with
a leading ``_`` and every character XML refuses written as ``_xHHHH_``; the parser maps tags
back through the specs it is given.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["from_tag", "is_xml_name", "to_tag"]

_XML_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")
_BAD_CHAR = re.compile(r"[^\w.\-]")


def is_xml_name(name: str) -> bool:
    """Whether ``name`` can be used as a tag as it is."""
    return bool(_XML_NAME.match(name)) and name.isascii()


def to_tag(name: str) -> str:
    """The tag that stands for ``name`` (``name`` itself when it is a valid XML name)."""
    if is_xml_name(name):
        return name
    return "_" + _BAD_CHAR.sub(lambda m: f"_x{ord(m.group()):04X}_", name)


def from_tag(tag: str, names: dict[str, str], folded: dict[str, str]) -> str:
    """The name a tag stands for, given ``names`` (tag → name) and ``folded`` (lower tag → name).

    An exact tag wins; a tag that differs only in case from exactly one known tag is mapped
    to it; anything else is returned as written.
    """
    exact = names.get(tag)
    if exact is not None:
        return exact
    return folded.get(tag.lower(), tag)


def tag_maps(names: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The ``(exact, folded)`` maps of :func:`from_tag` for ``names`` (cached)."""
    return _tag_maps(tuple(names))


@lru_cache(maxsize=1024)
def _tag_maps(names: tuple[str, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """The ``(exact, folded)`` maps of :func:`from_tag` for ``names``.

    A lower-cased tag shared by two names is left out of ``folded``: a guess would be wrong.
    """
    exact = {to_tag(n): n for n in names}
    folded: dict[str, str] = {}
    clashes: set[str] = set()
    for tag, name in exact.items():
        key = tag.lower()
        if key in folded:
            clashes.add(key)
        folded[key] = name
    for key in clashes:
        del folded[key]
    return exact, folded
