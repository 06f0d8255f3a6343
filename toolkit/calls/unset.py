"""``UNSET``: "not given, use the setting below", told apart from ``None``.

A field of :class:`~toolkit.CallOptions` left at :data:`UNSET` means the registry's (or the
tool's) setting; ``None`` is a value of its own: ``CallOptions(timeout=None)`` runs the call with
no timeout at all. httpx spells the same idea ``USE_CLIENT_DEFAULT``.
"""

from __future__ import annotations

import enum
from typing import Final, Literal, TypeVar

__all__ = ["UNSET", "Unset", "given_or"]

T = TypeVar("T")


class Unset(enum.Enum):
    """The type of :data:`UNSET` (one member, so a type checker narrows on ``is UNSET``)."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> Literal[False]:
        return False


#: A field nobody set: the setting below it applies.
UNSET: Final = Unset.UNSET


def given_or(value: T | Unset, default: T) -> T:
    """``value`` unless it is :data:`UNSET`, then ``default`` (``None`` counts as given).

    Example:
        >>> given_or(UNSET, 300.0), given_or(None, 300.0), given_or(5.0, 300.0)
        (300.0, None, 5.0)
    """
    return default if value is UNSET else value  # type: ignore[return-value]
