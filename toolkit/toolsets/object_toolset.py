"""Local tools as a toolset: :class:`ObjectToolset`."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from types import ModuleType

from toolkit.calls.spec import is_valid_name
from toolkit.errors import RegistrationError
from toolkit.function_tool import FunctionTool
from toolkit.registry import ToolRegistry
from toolkit.tool import Tool
from toolkit.toolsets import _scan
from toolkit.toolsets.toolset import BaseToolset

__all__ = ["ObjectToolset"]


class ObjectToolset(BaseToolset):
    """Local tools as a toolset: ``@mcp_tool`` functions of modules, packages and objects.

    Args:
        targets: Modules, dotted module or package names (walked recursively), classes,
            instances (their decorated methods, bound), functions, ready :class:`Tool` objects
            or registries (their tools).
        namespace: Prefix joined with ``_`` to every name, as in ``registry.scan``.

    Example:
        >>> toolset = ObjectToolset("examples.warehouse")  # doctest: +SKIP
        >>> registry.add_toolset_sync(toolset)  # doctest: +SKIP
    """

    def __init__(self, *targets: ModuleType | str | object, namespace: str | None = None) -> None:
        super().__init__()
        self._targets: tuple[ModuleType | str | object, ...] = targets
        self._namespace = namespace

    async def get_tools(self) -> list[Tool]:
        """The tools found in the targets, in a stable order.

        Raises:
            RegistrationError: A target cannot be imported or a function cannot be a tool.
        """
        return [self._named(tool) for tool in _tools_of(self._targets)]

    def _named(self, tool: Tool) -> Tool:
        if not self._namespace:
            return tool
        name = f"{self._namespace}_{tool.name}"
        if not is_valid_name(name):
            raise RegistrationError(
                f"Tool {tool.name!r} ({tool.spec.source or 'local'}) becomes {name!r} under "
                f"namespace {self._namespace!r}, which does not fit ^[a-zA-Z0-9_-]{{1,64}}$; "
                "use a shorter namespace."
            )
        return tool.renamed(name)

    def __repr__(self) -> str:
        return f"ObjectToolset({', '.join(map(_label, self._targets))})"


def _tools_of(targets: Iterable[ModuleType | str | object]) -> list[Tool]:
    out: list[Tool] = []
    for target in targets:
        if isinstance(target, ToolRegistry):
            out.extend(target.tools())
        elif isinstance(target, FunctionTool) or (
            not inspect.isroutine(target) and isinstance(target, Tool)
        ):
            out.append(target)
        elif inspect.isroutine(target):
            out.append(FunctionTool(target))
        else:
            out.extend(FunctionTool(fn) for _, fn in _scan.found_in(target))
    return out


def _label(target: object) -> str:
    if isinstance(target, str):
        return repr(target)
    return getattr(target, "__name__", type(target).__name__)
