"""Input schemas of simple parameters without building a pydantic model per function.

Most tool parameters are JSON scalars, their optional forms, lists and ``Literal`` choices.
For a function whose parameters are all of that kind, the input schema is assembled from one
schema per annotation (asked of pydantic once per annotation, then cached) plus each
parameter's default and description, key order included, exactly as pydantic would write it
for the arguments model. The model itself, which validates arguments, is then built on the
first call instead of at registration (:class:`LazyValidator`).

Anything else (models, dataclasses, ``Annotated`` metadata, ``Field`` defaults, defaults that
are not JSON scalars…) takes the model path, so the schemas are byte-for-byte the same.
"""

from __future__ import annotations

import copy
import functools
import math
import threading
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin

from pydantic import TypeAdapter

from toolkit.schema._callable import EMPTY, ParamInfo

__all__ = ["LazyValidator", "simple_properties"]

_SCALARS = (int, str, float, bool)
_CONTAINERS = (list, set, frozenset)


def simple_properties(
    params: list[ParamInfo], descriptions: list[str | None], generator: Any
) -> dict[str, Any] | None:
    """``properties`` of the input schema when every parameter is simple, else ``None``.

    Args:
        params: The parameters the model sets, in order.
        descriptions: Each parameter's description (already chosen by priority), or ``None``.
        generator: The JSON Schema generator class the model path uses.
    """
    properties: dict[str, Any] = {}
    for param, description in zip(params, descriptions, strict=True):
        default = param.default
        if default is not EMPTY and not _json_scalar(default):
            return None
        if not _simple(param.annotation):
            return None
        try:
            base = _type_schema(param.annotation, generator)
        except TypeError:  # an unhashable hint
            return None
        if base is None:
            return None
        prop = copy.deepcopy(base)
        if default is not EMPTY:
            prop["default"] = default
        if description:
            prop["description"] = description
        properties[param.name] = dict(sorted(prop.items()))
    return properties


class LazyValidator:
    """A pydantic validator built on first use (thread-safe), from ``build()``."""

    __slots__ = ("_build", "_lock", "_validator")

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._validator: Any = None
        self._lock = threading.Lock()

    def validate_python(self, value: Any) -> Any:
        """As ``SchemaValidator.validate_python``."""
        validator = self._validator
        if validator is None:
            with self._lock:
                if self._validator is None:
                    self._validator = self._build()
                validator = self._validator
        return validator.validate_python(value)


def _json_scalar(value: Any) -> bool:
    if value is None or type(value) in (bool, int, str):
        return True
    return type(value) is float and math.isfinite(value)


def _simple(hint: Any) -> bool:
    """Scalars, ``None``, and unions, lists, sets, string-keyed dicts and Literals of them."""
    if hint in _SCALARS or hint is type(None) or hint is None:
        return True
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is Literal:
        return all(type(a) in (str, int, bool) for a in args)
    if origin in (typing.Union, types.UnionType):
        return all(_simple(a) for a in args)
    if origin in _CONTAINERS:
        return len(args) == 1 and _simple(args[0])
    if origin is dict:
        return len(args) == 2 and args[0] is str and _simple(args[1])
    return False


@functools.lru_cache(maxsize=1024)
def _type_schema(hint: Any, generator: Any) -> dict[str, Any] | None:
    """pydantic's schema of ``hint`` alone; ``None`` if it needs definitions or titles."""
    try:
        schema = TypeAdapter(hint).json_schema(schema_generator=generator)
    except Exception:
        return None
    text = repr(schema)
    if "$ref" in text or "$defs" in text or "'title'" in text:
        return None
    return schema
