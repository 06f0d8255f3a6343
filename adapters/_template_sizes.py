"""Sizes for the response-template guard: how large a value prints, and what operations make.

Each ``est_*`` function takes an operation's arguments (as the filter or method receives them)
and returns an upper estimate of the result's size in characters, computed without building it.
The tables list every filter and ``str`` method a response template may use; anything not
listed is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from string import Formatter
from typing import Any

from jinja2.exceptions import SecurityError
from jinja2.utils import Namespace

__all__ = [
    "CONTAINER_METHODS",
    "PLAIN_FILTERS",
    "SEQUENCE_FILTERS",
    "STR_METHODS",
    "TEXT_FILTERS",
    "format_size",
    "percent_size",
    "weight",
]

#: No practical limit (for estimates compared with a limit afterwards).
_UNLIMITED = 1 << 62


def _names(text: str) -> list[str]:
    return text.split()


def weight(value: Any, limit: int) -> int:
    """About how many characters ``str(value)`` takes; counting stops once past ``limit``."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2 + 2 * len(item)
            if total <= limit:
                stack.extend(item)
        elif isinstance(item, Mapping):
            total += 2 + 4 * len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, Namespace):
            stack.append(object.__getattribute__(item, "_Namespace__attrs"))
        elif isinstance(item, int) and not isinstance(item, bool):
            total += item.bit_length() // 3 + 1
        else:
            total += 8
        if total > limit:
            return total
    return total


_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d*)(?:\.(\*|\d*))?[hlL]?[a-zA-Z%]")
_DIGITS = re.compile(r"\d+")


def _number(digits: str) -> int:
    return int(digits) if digits and len(digits) < 19 else (_UNLIMITED if digits else 0)


def percent_size(fmt: str, args: Any) -> int:
    size = len(fmt)
    for match in _PERCENT_FIELD.finditer(fmt):
        width, precision = match.group(1), match.group(2) or ""
        if width == "*" or precision == "*":
            raise SecurityError("'*' widths are not allowed in templates; write the number")
        size += _number(width) + _number(precision) + 320
    return size + weight(args, _UNLIMITED)


def format_size(fmt: str, args: Any) -> int:
    size = len(fmt)
    for _literal, field, spec, _conversion in Formatter().parse(fmt):
        if field is None:
            continue
        if spec and "{" in spec:
            raise SecurityError("nested fields in format specs are not allowed in templates")
        size += 320 + sum(_number(d) for d in _DIGITS.findall(spec or ""))
    return size + weight(args, _UNLIMITED)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else weight(value, _UNLIMITED)


# Estimates of a result's size from the arguments, for the operations that can grow text.
def _est_center(value: Any, width: int = 80) -> int:
    return _length(value) + max(int(width), 0)


def _est_indent(s: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> int:
    pad = len(width) if isinstance(width, str) else max(int(width), 0)
    text = str(s) if isinstance(s, str) else ""
    return _length(s) + (text.count("\n") + 1) * pad


def _est_wordwrap(s: Any, width: int = 79, *args: Any, **kwargs: Any) -> int:
    wrap = kwargs.get("wrapstring") or (args[1] if len(args) > 1 else None) or "\n"
    size = _length(s)
    return size + (size // max(int(width), 1) + 1) * len(str(wrap))


def _est_replace(s: Any, old: Any, new: Any, count: int | None = None) -> int:
    size, old_len = _length(s), len(str(old))
    times = size + 1 if old_len == 0 else size // old_len
    if count is not None and count >= 0:
        times = min(times, count)
    return size + times * len(str(new))


def _est_format(value: Any, *args: Any, **kwargs: Any) -> int:
    return percent_size(str(value), kwargs or args)


def _est_tojson(value: Any, indent: int | None = None) -> int:
    if indent is not None and not 0 <= int(indent) <= 16:
        raise SecurityError("tojson indent must be between 0 and 16")
    return weight(value, _UNLIMITED)


def _est_text(value: Any, *args: Any, **kwargs: Any) -> int:
    return _length(value)


def _est_truncate(s: Any, length: int = 255, killwords: bool = False, end: str = "...") -> int:
    return _length(s) + len(str(end))


def _est_batch(value: Any, linecount: int, fill_with: Any = None) -> int:
    return 0 if fill_with is None else int(linecount) * (1 + weight(fill_with, _UNLIMITED))


def _est_slice(value: Any, slices: int, fill_with: Any = None) -> int:
    return int(slices) * (2 + weight(fill_with, _UNLIMITED))


_Estimate = Callable[..., int]

#: Filters that stringify their input, with an estimate of the result's size. Escaping
#: filters may grow text up to six times what is estimated; their result is measured after.
TEXT_FILTERS: dict[str, _Estimate] = {
    "center": _est_center,
    "indent": _est_indent,
    "wordwrap": _est_wordwrap,
    "replace": _est_replace,
    "format": _est_format,
    "tojson": _est_tojson,
    "truncate": _est_truncate,
    **dict.fromkeys(
        _names(
            "capitalize lower upper title trim striptags string safe wordcount "
            "filesizeformat e escape forceescape urlencode xmlattr"
        ),
        _est_text,
    ),
}
#: Filters that go through a sequence, with an estimate of what they add.
SEQUENCE_FILTERS: dict[str, _Estimate | None] = {
    "batch": _est_batch,
    "slice": _est_slice,
    **dict.fromkeys(
        _names(
            "list map select reject selectattr rejectattr sort unique join sum min max "
            "groupby dictsort items"
        )
    ),
}
#: Filters that neither grow text nor go through a sequence.
PLAIN_FILTERS = _names("abs attr count d default first float int last length random reverse round")


def _est_str_join(s: str, iterable: Any) -> int:
    items = list(iterable)
    return len(s) * max(len(items) - 1, 0) + weight(items, _UNLIMITED)


def _est_width(s: str, width: int, *_: Any) -> int:
    return len(s) + max(int(width), 0)


def _est_tabs(s: str, tabsize: int = 8) -> int:
    return len(s) + s.count("\t") * max(int(tabsize), 0)


def _est_str_replace(s: str, old: str, new: str, count: int = -1) -> int:
    return _est_replace(s, old, new, None if count < 0 else count)


#: ``str`` methods a template may call: None for those that do not grow text.
STR_METHODS: dict[str, _Estimate | None] = {
    "center": _est_width,
    "ljust": _est_width,
    "rjust": _est_width,
    "zfill": _est_width,
    "expandtabs": _est_tabs,
    "replace": _est_str_replace,
    "join": _est_str_join,
    **dict.fromkeys(
        _names(
            "capitalize casefold count endswith find index isalnum isalpha isascii "
            "isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle "
            "isupper lower lstrip partition removeprefix removesuffix rfind rindex "
            "rpartition rsplit rstrip split splitlines startswith strip swapcase title upper"
        )
    ),
}
#: Methods of lists, tuples and dicts a template may call (none of them modifies).
CONTAINER_METHODS = frozenset(_names("count index get items keys values copy"))
