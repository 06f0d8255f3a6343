"""The one rule for values that fill a path: a resource URI's variables, an HTTP tool's path
parameters.

Rule: a value that fills one path segment (a URI template's ``{name}``) holds no ``/``, ``\\``
or NUL once decoded and is not ``.`` or ``..``; a value that fills the rest of a path
(``{+name}``, an HTTP path parameter, which is percent-encoded but may be decoded by the server)
holds no NUL and no ``..`` segment (between ``/`` or ``\\``). Either way an empty value is
refused. A value that breaks the rule would reach outside the path its template serves, so it
is refused before any function or endpoint sees it.
"""

from __future__ import annotations

import re

__all__ = ["path_value_problem"]

_SEPARATORS = re.compile(r"[/\\]")


def path_value_problem(value: str, *, segment: bool) -> str | None:
    """Why ``value`` cannot fill a path variable, or ``None`` when it can.

    Args:
        value: The value as the function or endpoint will see it (decoded).
        segment: The variable is one path segment (``{name}``); else the rest of a path.

    Example:
        >>> path_value_problem("..", segment=True)
        "is '..', which would leave the folder"
        >>> path_value_problem("reports/2024.txt", segment=False) is None
        True
    """
    if not value:
        return "is empty"
    if "\x00" in value:
        return "holds a NUL character"
    if segment and _SEPARATORS.search(value):
        return "holds '/' or '\\', but it is one path segment"
    if value in (".", ".."):
        return f"is {value!r}, which would leave the folder"
    if ".." in _SEPARATORS.split(value):
        return "has a '..' segment, which would leave the folder"
    return None
