"""Type hints pydantic accepts on every supported Python.

On Python < 3.12 pydantic refuses classes made with ``typing.TypedDict`` (it needs
``typing_extensions.TypedDict``). Users write the standard one, so the schema builder converts
such classes, wherever they sit in a hint (``list[Address]``, ``Address | None``,
``Annotated[Address, ...]``), to an equivalent ``typing_extensions.TypedDict``: same name, doc,
fields, required keys and field metadata.
"""

from __future__ import annotations

import functools
import operator
import sys
import types
import typing
from typing import Annotated, Any, get_args, get_origin

import typing_extensions

__all__ = ["portable_hint"]

_NEEDED = sys.version_info < (3, 12)


def portable_hint(hint: Any) -> Any:
    """``hint`` with every ``typing.TypedDict`` class replaced by a pydantic-ready equivalent."""
    if not _NEEDED:
        return hint
    return _convert(hint, {})


def _is_std_typeddict(hint: Any) -> bool:
    return (
        isinstance(hint, type)
        and typing_extensions.is_typeddict(hint)
        and type(hint).__module__ == "typing"
    )


def _convert(hint: Any, memo: dict[int, Any]) -> Any:
    if _is_std_typeddict(hint):
        return _typeddict(hint, memo)
    args = get_args(hint)
    if not args:
        return hint
    origin = get_origin(hint)
    if origin is Annotated:
        return Annotated[(_convert(args[0], memo), *hint.__metadata__)]  # type: ignore[valid-type]
    if origin is typing.Literal:
        return hint
    new = tuple(_convert(a, memo) for a in args)
    if all(a is b for a, b in zip(new, args, strict=True)):
        return hint
    if isinstance(hint, types.UnionType):
        return functools.reduce(operator.or_, new)
    if isinstance(hint, types.GenericAlias):
        return types.GenericAlias(origin, new)
    copy_with = getattr(hint, "copy_with", None)
    return copy_with(new) if copy_with is not None else hint


def _typeddict(cls: type, memo: dict[int, Any]) -> Any:
    if id(cls) in memo:
        return memo[id(cls)]
    hints = typing.get_type_hints(cls, include_extras=True)
    fields: dict[str, Any] = {}
    for key, value in hints.items():
        if get_origin(value) in (typing_extensions.Required, typing_extensions.NotRequired):
            value = get_args(value)[0]
        value = _convert(value, memo)
        wrap = (
            typing_extensions.Required
            if key in cls.__required_keys__  # type: ignore[attr-defined]
            else typing_extensions.NotRequired
        )
        fields[key] = wrap[value]
    made: Any = typing_extensions.TypedDict(cls.__name__, fields)  # type: ignore[misc]
    made.__doc__, made.__module__, made.__qualname__ = cls.__doc__, cls.__module__, cls.__qualname__
    memo[id(cls)] = made
    return made
