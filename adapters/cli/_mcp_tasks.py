"""``toolkit mcp call --task``: the server spoken to in the task generation, a status line."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from adapters.mcp_client import McpServerConfig, load_mcp_config
from toolkit import ToolContext, ToolRegistry

__all__ = ["legacy_server", "task_status"]


def legacy_server(config: Path, server: str) -> dict[str, McpServerConfig]:
    """The servers of ``config``, ``server`` spoken to with the 2025-11-25 handshake (the
    generation whose tasks the SDK has types for)."""
    servers = load_mcp_config(config)
    if server in servers:
        servers[server] = servers[server].model_copy(update={"protocol": "legacy"})
    return servers


def task_status(registry: ToolRegistry, tool: str, console: Console) -> ToolContext | None:
    """A context whose progress prints the task's status line on ``console`` (``None``, with a
    note, when the server does not offer ``tool`` as a task: it runs as a plain call)."""
    if tool not in registry:
        return None  # the call says it is not found, naming the tools there are
    if registry.get(tool).spec.options.task_support == "forbidden":
        console.print(f"[yellow]note:[/] the server does not run {tool} as a task: a plain call")
        return None
    console.print(f"[dim]task:[/] {tool} started; its status follows")

    async def status(done: float, total: float | None, message: str | None) -> None:
        console.print(f"[dim]task:[/] {message or 'working'}", highlight=False)

    return ToolContext(tool=tool, progress=status)
