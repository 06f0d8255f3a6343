"""Which parameters are filled by the caller and never shown to, or set by, the model.

Recognised without importing any framework (the core must not depend on them):

* a :class:`~toolkit.context.ToolContext` parameter (also ``ToolContext | None``);
* ``Annotated[T, Injected]`` (:data:`toolkit.context.Injected`);
* ``Annotated`` metadata that is, or is an instance of, a class with a base named
  ``InjectedToolArg`` — LangChain's and LangGraph's ``InjectedToolArg``, ``InjectedToolCallId``,
  ``InjectedState``, ``InjectedStore``;
* a parameter annotated with a class that has a base named ``ToolRuntime`` (LangGraph's
  ``ToolRuntime``, generic or not, optional or not).
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from toolkit.context import Injected, ToolContext

__all__ = ["is_context_annotation", "is_injected_annotation"]

_INJECTED_BASE_NAMES = frozenset({"InjectedToolArg"})
_RUNTIME_BASE_NAMES = frozenset({"ToolRuntime"})


def _union_members(hint: Any) -> tuple[Any, ...]:
    """The members of ``X | Y`` / ``Optional[X]`` (without ``None``), else ``(hint,)``."""
    if get_origin(hint) in (Union, types.UnionType):
        return tuple(a for a in get_args(hint) if a is not type(None))
    return (hint,)


def _strip_annotated(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    if get_origin(hint) is Annotated:
        return hint.__origin__, tuple(hint.__metadata__)
    return hint, ()


def _has_base_named(cls: type, names: frozenset[str]) -> bool:
    return any(base.__name__ in names for base in cls.__mro__)


def is_context_annotation(hint: Any) -> bool:
    """Whether ``hint`` is ``ToolContext`` or ``ToolContext | None`` (possibly ``Annotated``)."""
    bare, _ = _strip_annotated(hint)
    members = _union_members(bare)
    return len(members) == 1 and members[0] is ToolContext


def is_injected_annotation(hint: Any) -> bool:
    """Whether a parameter annotated ``hint`` is filled by the caller, not by the model.

    Args:
        hint: A resolved annotation, with ``Annotated`` extras kept
            (``typing.get_type_hints(fn, include_extras=True)``).

    Returns:
        True for the cases listed in this module's docstring.
    """
    if is_context_annotation(hint):
        return True
    for member in _union_members(hint):
        bare, metadata = _strip_annotated(member)
        for meta in metadata:
            if meta is Injected or _is_injected_marker(meta):
                return True
        if _is_runtime_class(bare):
            return True
        if get_origin(bare) in (Union, types.UnionType) and is_injected_annotation(bare):
            return True
    return False


def _is_injected_marker(meta: Any) -> bool:
    return _has_base_named(meta if isinstance(meta, type) else type(meta), _INJECTED_BASE_NAMES)


def _is_runtime_class(bare: Any) -> bool:
    cls = bare if isinstance(bare, type) else get_origin(bare)
    return isinstance(cls, type) and _has_base_named(cls, _RUNTIME_BASE_NAMES)
