"""A toolset bound to a registry: its tools added (all or nothing, or skipping clashes), then
kept current."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from toolkit.errors import RegistrationError
from toolkit.tool import Tool
from toolkit.toolsets.toolset import WRAPPER_FIX

if TYPE_CHECKING:
    from toolkit.registry import ToolRegistry
    from toolkit.toolsets.toolset import OnClash, Toolset

log = logging.getLogger("toolkit.registry")


async def bind(
    registry: ToolRegistry, toolset: Toolset, on_clash: OnClash = "refuse"
) -> list[Tool]:
    """Add the toolset's tools; later lists swap them in place.

    Args:
        on_clash: ``"refuse"``: none is added if one name is taken or given twice.
            ``"skip"``: the others are added and each clash is logged; only when every tool
            clashes is it an error (the same source twice, a missing prefix).

    Raises:
        RegistrationError: A clash (``"refuse"``), every tool clashing (``"skip"``), or an
            unknown ``on_clash``.
    """
    if on_clash not in ("refuse", "skip"):
        raise RegistrationError(f"on_clash={on_clash!r} is not a rule: use 'refuse' or 'skip'.")
    tools = list(await toolset.get_tools())
    if on_clash == "refuse":
        check_free(registry, tools, toolset)
    else:
        tools = _free(registry, tools, toolset)
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
        problem = _clash(registry, tool, toolset, seen)
        if problem:
            raise RegistrationError(problem)
        seen.add(tool.name)


def _free(registry: ToolRegistry, tools: list[Tool], toolset: Toolset) -> list[Tool]:
    """The tools whose names are free; each other one is logged, and none free is an error."""
    seen: set[str] = set()
    free: list[Tool] = []
    problems: list[str] = []
    for tool in tools:
        problem = _clash(registry, tool, toolset, seen)
        if problem:
            problems.append(problem)
        else:
            free.append(tool)
            seen.add(tool.name)
    if problems and not free:
        raise RegistrationError(
            f"None of the {len(tools)} tools of toolset {toolset!r} could be added. {problems[0]}"
        )
    for problem in problems:
        log.warning("skipped a tool: %s", problem)
    return free


def _clash(registry: ToolRegistry, tool: Tool, toolset: Toolset, seen: set[str]) -> str:
    """Why ``tool`` cannot be added (the tool, the source holding the name, the fix), or ``""``."""
    if tool.name in seen:
        return (
            f"Toolset {toolset!r} gives two tools named {tool.name!r}; rename one "
            "(toolset.renamed({...})) or filter it out (toolset.filtered(...))."
        )
    if tool.name in registry and registry.get(tool.name) is not tool:
        return (
            f"Tool name {tool.name!r} of toolset {toolset!r} is already taken by "
            f"{source_of(registry.get(tool.name))}. {_fix(toolset, tool)}"
        )
    return ""


def _fix(toolset: Toolset, tool: Tool) -> str:
    """The toolset's own advice (``BaseToolset.clash_fix``), else the wrappers'."""
    clash_fix = getattr(toolset, "clash_fix", None)
    if callable(clash_fix):
        return str(clash_fix(tool))
    return WRAPPER_FIX


def source_of(tool: Tool) -> str:
    """Where a tool comes from, for messages: its spec's source, else its repr."""
    try:
        source = tool.spec.source
    except Exception:
        source = ""
    return source or repr(tool)


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
