"""A toolset bound to a registry: its tools added all-or-nothing, then kept current."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from toolkit.errors import RegistrationError
from toolkit.tool import Tool

if TYPE_CHECKING:
    from toolkit.registry import ToolRegistry
    from toolkit.toolset import Toolset

log = logging.getLogger("toolkit.registry")


async def bind(registry: ToolRegistry, toolset: Toolset) -> list[Tool]:
    """Add the toolset's tools (none if one name is taken); later lists swap them in place."""
    tools = list(await toolset.get_tools())
    check_free(registry, tools, toolset)
    for tool in tools:
        registry.add(tool)
    toolset.on_change(Binding(registry, toolset, tools).swap)
    return tools


def check_free(registry: ToolRegistry, tools: list[Tool], toolset: Toolset) -> None:
    """Raise before anything is added if a name is taken or given twice by the toolset.

    Raises:
        RegistrationError: Naming the tool, both sources and the fixes.
    """
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise RegistrationError(
                f"Toolset {toolset!r} gives two tools named {tool.name!r}; rename one "
                "(toolset.renamed({...})) or filter it out (toolset.filtered(...))."
            )
        seen.add(tool.name)
        if tool.name in registry and registry.get(tool.name) is not tool:
            raise RegistrationError(
                f"Tool name {tool.name!r} of toolset {toolset!r} is already taken by "
                f"{registry.get(tool.name).spec.source or 'another tool'}. Add the toolset "
                "with a prefix (toolset.prefixed('...')), rename the tool "
                "(toolset.renamed({...})) or leave it out (toolset.filtered(...))."
            )


class Binding:
    """Swaps a toolset's tools in the registry when the toolset reports a new list.

    Only tools this binding added are removed; a new tool whose name another source took
    meanwhile is skipped with a warning, and the toolset's other tools still come in.
    """

    def __init__(self, registry: ToolRegistry, toolset: Toolset, tools: list[Tool]) -> None:
        self._registry = registry
        self._toolset = toolset
        self._mine: dict[str, Tool] = {tool.name: tool for tool in tools}

    def swap(self, tools: list[Tool]) -> None:
        """Replace the tools this binding added by ``tools``."""
        registry = self._registry
        for name, old in self._mine.items():
            if name in registry and registry.get(name) is old:
                registry.remove(name)
        mine: dict[str, Tool] = {}
        for tool in tools:
            try:
                registry.add(tool)
            except RegistrationError as exc:
                log.warning("skipped tool %r of toolset %r: %s", tool.name, self._toolset, exc)
                continue
            mine[tool.name] = tool
        self._mine = mine
