"""Anything a user hands over as tools, as a :class:`~toolkit.Toolset`: :func:`as_toolset`.

One table, :data:`TOOLSET_KINDS`, says which kinds of thing are accepted and how each becomes
a toolset; every place that takes "tools" (``build_agent``'s list, a served TARGET) reads it,
so a new kind is one new row here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any, NamedTuple

from toolkit.errors import RegistrationError
from toolkit.registry import ToolRegistry
from toolkit.tool import Tool
from toolkit.toolsets.object_toolset import ObjectToolset
from toolkit.toolsets.toolset import BaseToolset, Toolset

__all__ = ["TOOLSET_KINDS", "RegistryToolset", "ToolsetKind", "as_toolset"]


class ToolsetKind(NamedTuple):
    """One row of :data:`TOOLSET_KINDS`.

    Attributes:
        name: The kind, as error messages list it.
        accepts: Whether an item is of this kind.
        build: The item as a toolset.
    """

    name: str
    accepts: Callable[[Any], bool]
    build: Callable[[Any], Toolset]


class RegistryToolset(BaseToolset):
    """The tools of a :class:`~toolkit.ToolRegistry`, following its changes.

    Args:
        registry: The registry whose tools this toolset gives.
    """

    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__()
        self.registry = registry

    async def get_tools(self) -> list[Tool]:
        """The registry's tools now."""
        return self.registry.tools()

    def on_change(self, callback: Callable[[list[Tool]], None]) -> Callable[[], None]:
        """Call ``callback`` with the registry's tools whenever one is added or removed."""
        return self.registry.on_change(lambda: callback(self.registry.tools()))

    def __repr__(self) -> str:
        return f"RegistryToolset({self.registry!r})"


def _is_tool(item: Any) -> bool:
    # A decorated function is a routine first: its FunctionTool is built by the function row.
    return not inspect.isroutine(item) and isinstance(item, Tool)


def _is_object(item: Any) -> bool:
    # Instances of the user's own classes (their @mcp_tool methods, bound); never a bare value.
    return type(item).__module__ != "builtins"


#: Every kind of thing accepted as tools, in the order they are tried.
TOOLSET_KINDS: tuple[ToolsetKind, ...] = (
    ToolsetKind(
        "a ToolRegistry (its tools)", lambda i: isinstance(i, ToolRegistry), RegistryToolset
    ),
    ToolsetKind("a Toolset", lambda i: isinstance(i, Toolset), lambda i: i),
    ToolsetKind("a Tool", _is_tool, ObjectToolset),
    ToolsetKind("a function or method (decorated or not)", inspect.isroutine, ObjectToolset),
    ToolsetKind(
        "a module or a dotted module name (its @mcp_tool functions)",
        lambda i: isinstance(i, ModuleType | str),
        ObjectToolset,
    ),
    ToolsetKind("a class (its @mcp_tool static and class methods)", inspect.isclass, ObjectToolset),
    ToolsetKind("an object (its @mcp_tool methods, bound)", _is_object, ObjectToolset),
)


def as_toolset(item: Any) -> Toolset:
    """``item`` as a :class:`~toolkit.Toolset`, by the first row of :data:`TOOLSET_KINDS` that
    accepts it: a toolset as itself, a registry's tools, a tool, a function, a module (or its
    dotted name), a class, or an object's decorated methods.

    Args:
        item: What a user handed over as tools.

    Returns:
        A toolset; add it with ``registry.add_toolset(...)`` / ``add_toolset_sync(...)``.

    Raises:
        RegistrationError: ``item`` is none of the accepted kinds (the message lists them).

    Example:
        >>> from toolkit import ToolRegistry, as_toolset, mcp_tool
        >>> @mcp_tool
        ... def ping() -> str:
        ...     "Answer pong."
        ...     return "pong"
        >>> ToolRegistry().add_toolset_sync(as_toolset(ping))[0].name
        'ping'
    """
    for kind in TOOLSET_KINDS:
        if kind.accepts(item):
            return kind.build(item)
    kinds = "; ".join(kind.name for kind in TOOLSET_KINDS)
    raise RegistrationError(f"Cannot use {_shown(item)} as tools: give {kinds}.")


def _shown(item: Any) -> str:
    text = repr(item)
    return f"{type(item).__name__} {text[:80]}{'…' if len(text) > 80 else ''}"
