"""``${VAR}`` and ``${VAR:-default}`` in configs: expanded late, listed, and kept secret.

Configs of remote MCP servers and HTTP endpoint tools may name environment variables instead
of holding secrets. One set of rules serves both:

- :func:`expand_vars` reads the values when a request is sent, never at load time;
- :func:`required_vars` lists the variables without a default (a load error if unset);
- :func:`secret_values` gives the texts to mask in every message and record: the value of each
  variable *and* each default, since a default is as much a secret as the value it stands for;
- :func:`masked` shows a template with its defaults hidden (``${KEY:-***}``), for reprs and views.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

__all__ = [
    "VAR_PATTERN",
    "auth_headers",
    "expand_vars",
    "masked",
    "required_vars",
    "secret_values",
]

#: ``${NAME}`` or ``${NAME:-default}``.
VAR_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

_MIN_SECRET = 4  # shorter values would mask ordinary words


def expand_vars(text: str) -> str:
    """Replace ``${VAR}`` / ``${VAR:-default}`` with the environment's values (or the default)."""

    def value(match: re.Match[str]) -> str:
        default = match.group(2)
        return os.environ.get(match.group(1), default if default is not None else "")

    return VAR_PATTERN.sub(value, text)


def required_vars(texts: Iterable[str]) -> list[str]:
    """Sorted names of the variables referenced without a default."""
    return sorted(
        {m.group(1) for t in texts for m in VAR_PATTERN.finditer(t) if m.group(2) is None}
    )


def secret_values(texts: Iterable[str]) -> list[str]:
    """What to mask: each referenced variable's current value and each default (≥ 4 chars)."""
    found: set[str] = set()
    for text in texts:
        for match in VAR_PATTERN.finditer(text):
            found.add(os.environ.get(match.group(1), ""))
            found.add(match.group(2) or "")
    return sorted(v for v in found if len(v) >= _MIN_SECRET)


def masked(text: str) -> str:
    """``text`` with every default hidden: ``${KEY:-s3cret}`` → ``${KEY:-***}``."""
    return VAR_PATTERN.sub(
        lambda m: f"${{{m.group(1)}:-***}}" if m.group(2) is not None else m.group(0), text
    )


def auth_headers(kind: str, token: str, header: str) -> dict[str, str]:
    """The headers of a static credential, expanded now (call only when a request is sent).

    Args:
        kind: ``"bearer"`` (``Authorization: Bearer <token>``), ``"header"`` (``header: token``);
            anything else sends no credential header.
        token: The credential, normally a ``${VAR}`` reference.
        header: The header name for ``"header"``.
    """
    if kind == "bearer":
        return {"Authorization": f"Bearer {expand_vars(token)}"}
    if kind == "header":
        return {header: expand_vars(token)}
    return {}
