"""Keeping secrets out of messages, records and logs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MASK = "***"

#: Parameter names whose values are secrets (matched anywhere in the name, any case).
SECRET_NAME = re.compile(
    r"pass(word|wd|phrase)?|pwd|token|secret|api[_-]?key|apikey|auth|credential|private[_-]?key|cookie",
    re.IGNORECASE,
)

# Shorter values are too likely to occur by chance in ordinary text.
_MIN_SECRET_LEN = 4


def is_secret_name(name: str) -> bool:
    """Whether a parameter called ``name`` holds a secret."""
    return bool(SECRET_NAME.search(name))


def redact_arguments(value: Any) -> Any:
    """A copy of ``value`` with the values of secret-named keys masked, at any depth."""
    if isinstance(value, dict):
        return {
            k: MASK if isinstance(k, str) and is_secret_name(k) else redact_arguments(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_arguments(v) for v in value]
    return value


def secret_values(arguments: Any) -> list[str]:
    """The string values of secret-named keys in ``arguments``, at any depth."""
    found: list[str] = []
    if isinstance(arguments, dict):
        for k, v in arguments.items():
            if isinstance(k, str) and is_secret_name(k) and isinstance(v, str | int):
                found.append(str(v))
            else:
                found.extend(secret_values(v))
    elif isinstance(arguments, list):
        for v in arguments:
            found.extend(secret_values(v))
    return found


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret replaced by ``***`` (longest first)."""
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_LEN}, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text
