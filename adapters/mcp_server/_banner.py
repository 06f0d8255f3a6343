"""The one line ``toolkit serve`` prints when it starts: what a client will see listed.

Every mode says it alike (stdio, HTTP, HTTP with workers): the tools ``tools/list`` holds (with
``--tool-search``, the search and call tools, and how many tools they reach), the resources
(templates included) and the prompts, where they are served, and how.
"""

from __future__ import annotations

from adapters.mcp_server._search_mode import CALL_TOOL, SEARCH_TOOL
from toolkit import ToolRegistry

__all__ = ["serving_line"]


def serving_line(
    registry: ToolRegistry,
    what: str,
    where: str,
    *,
    tool_search: int | None = None,
    note: str = "",
) -> str:
    """``Serving 9 tools, 2 resources and 1 prompt from WHAT WHERE NOTE``.

    Args:
        registry: The registry served (its tools, resources and prompts are counted).
        what: The target served (a module, a file, a config).
        where: ``over stdio`` or ``at http://host:port/mcp`` and how.
        tool_search: ``--tool-search K``: two tools are listed, and the K most used join them.
        note: Said last, in the words of the mode (how to stop, the token, the workers).
    """
    tools = _count(len(registry), "tool")
    if tool_search is not None:
        joined = (
            f"; the {_count(tool_search, 'most used tool')} join them once called"
            if tool_search
            else ""
        )
        every = "the" if len(registry) == 1 else "all"
        tools = f"2 tools ({SEARCH_TOOL} and {CALL_TOOL}, which reach {every} {tools}{joined})"
    resources = len(registry.resources.resources()) + len(registry.resources.templates())
    prompts = len(registry.prompts.prompts())
    listed = f"{tools}, {_count(resources, 'resource')} and {_count(prompts, 'prompt')}"
    return f"Serving {listed} from {what} {where}{note}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
