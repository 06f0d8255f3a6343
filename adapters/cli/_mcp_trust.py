"""``toolkit mcp diff|trust``: review and accept remote tool definitions against the lock."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from adapters.mcp_client import McpClientPool, ToolChange, review_tools, trust_tools

__all__ = ["add_trust_commands"]

_out = Console()

Runner = Callable[[Path, Callable[[McpClientPool], Awaitable[Any]]], Any]
ConfigArg = Annotated[Path, typer.Argument(help="A JSON or YAML file with 'mcpServers'.")]
ServerArg = Annotated[str | None, typer.Argument(help="One server (default: all).")]
ToolArg = Annotated[str | None, typer.Argument(help="One tool of SERVER, by its name there.")]

_SAID = {
    "changed": "changed since it was trusted",
    "new": "new: listed after the server was trusted",
    "removed": "removed by the server (needs no approval)",
    "unpinned": "not in the lock (the server is not pinned)",
}


def _print(text: str) -> None:
    _out.print(text, soft_wrap=True, markup=False, highlight=False)


def _headline(change: ToolChange) -> str:
    # The server's name for its tool reaches the terminal escaped, control characters too.
    line = f"{change.server}/{json.dumps(change.tool, ensure_ascii=True)[1:-1]}: "
    line += _SAID[change.status]
    if change.changes:
        line += f" ({'; '.join(change.changes)})"
    if change.hidden:
        line += f"; its text hides {', '.join(sorted(change.hidden))}"
    return line


def add_trust_commands(app: typer.Typer, run: Runner) -> None:
    """Add ``diff`` and ``trust`` to ``app``; ``run(config, work)`` opens the pool."""

    @app.command("diff")
    def diff(config: ConfigArg, server: ServerArg = None, tool: ToolArg = None) -> None:
        """Show how the servers' tools differ from the lock (old against new).

        Hidden characters are shown escaped. Exit 1 while a tool waits for `toolkit mcp trust`.
        """

        async def work(pool: McpClientPool) -> list[ToolChange]:
            return await review_tools(pool, server, tool)

        changes = run(config, work)
        if not changes:
            _print("No differences: every tool matches the lock.")
            return
        for change in changes:
            _print(_headline(change))
            for line in change.diff():
                _print(line)
        if any(c.status != "removed" for c in changes):
            where = " ".join(w for w in (server, tool) if w)
            _print(f"Accept with: toolkit mcp trust {config} {where}".rstrip())
            raise typer.Exit(1)

    @app.command("trust")
    def trust(config: ConfigArg, server: ServerArg = None, tool: ToolArg = None) -> None:
        """Pin the tools as the servers list them now in the lock beside the config.

        A server (or all) is pinned as a whole; one tool is pinned alone.

        The lock is `<config stem>.lock.json` (`mcp.json` -> `mcp.lock.json`).
        """

        async def work(pool: McpClientPool) -> tuple[list[ToolChange], str]:
            accepted = await trust_tools(pool, server, tool)
            return accepted, str(pool.trust.lock.path)

        accepted, lock = run(config, work)
        for change in accepted:
            _print("accepted " + _headline(change))
        if not accepted:
            _print(f"Nothing to accept: every tool matches the lock ({lock}).")
        else:
            _print(f"Trusted {_count(len(accepted))}; the lock is {lock}.")


def _count(n: int) -> str:
    return f"{n} change" + ("" if n == 1 else "s")
