"""``toolkit mcp ...``: look at, call and test the MCP servers of a config file."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
import typer
from rich.console import Console
from rich.table import Table

from adapters.cli._approval import TerminalApprover
from adapters.cli._mcp_catalog import add_catalog_commands
from adapters.cli._mcp_tasks import legacy_server, task_status
from adapters.cli._mcp_trust import add_trust_commands
from adapters.mcp_client import McpClientPool, McpConfigError, token_path
from toolkit import Approval, CallOptions, CallRequest, ToolRegistry, ToolResult
from toolkit.errors import ToolError
from toolkit.result import AudioContent, Content, ImageContent, ResourceContent

__all__ = ["mcp_app"]

mcp_app = typer.Typer(
    help="Inspect, call and test the MCP servers of a config file.", no_args_is_help=True
)
_out = Console()
_err = Console(stderr=True)
_T = TypeVar("_T")

ConfigArg = Annotated[Path, typer.Argument(help="A JSON or YAML file with 'mcpServers'.")]


def _run(
    config: Path,
    work: Callable[[McpClientPool], Awaitable[_T]],
    asking: TerminalApprover | None = None,
    handshake: str | None = None,
) -> _T:
    async def main() -> _T:
        # On a terminal (or with --yes), servers that ask the user (elicitation) get answers.
        person = asking or TerminalApprover(yes=False)
        ask = person.answer_server if person.answers_servers else None
        servers: Any = config if handshake is None else legacy_server(config, handshake)
        async with McpClientPool(servers, elicitation=ask) as pool:
            return await work(pool)

    try:
        return anyio.run(main)
    except (McpConfigError, KeyError) as exc:
        # str() of a KeyError is its repr, quotes included: show the message itself.
        said = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        _err.print(f"[red]error:[/red] {said}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from None
    except ToolError as exc:
        _err.print(f"[red]{exc.code.value}:[/red] {exc.message}")
        raise typer.Exit(1) from None


@mcp_app.command("list")
def list_tools(config: ConfigArg, server: Annotated[str | None, typer.Argument()] = None) -> None:
    """List the tools of every server (or one) by the names `toolkit mcp call` accepts."""
    # The table `toolkit inspect` prints, on its console (piped output keeps whole lines).
    from adapters.cli._render import console, count, spec_table

    async def work(pool: McpClientPool) -> None:
        for name in [server] if server else list(pool.servers):
            registry = ToolRegistry()
            await pool.register_into(registry, [name], prefix="")  # the names `mcp call` takes
            specs = registry.specs()
            console.print(spec_table(specs, title=f"{name}: {count(len(specs), 'tool')}"))

    _run(config, work)


@mcp_app.command("call")
def call(
    config: ConfigArg,
    server: str,
    tool: str,
    arguments: Annotated[str, typer.Argument(help="JSON object of arguments.")] = "{}",
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Approve a destructive call without asking, and answer yes to the server's "
            "questions.",
        ),
    ] = False,
    task: Annotated[
        bool,
        typer.Option(
            "--task",
            help="Run a long tool as an MCP task (2025-11-25): the status line shows what it "
            "is doing until its result comes.",
        ),
    ] = False,
) -> None:
    """Call one tool and print its result as the model reads it. Exit 1 on failure.

    A destructive tool asks first on a terminal, once: the server's own approval question is
    then answered yes. --yes approves it and answers every question without asking.
    """
    # The panel and the question `toolkit call` uses, so a remote call reads like a local one.
    from adapters.cli._render import console, err_console, result_panel

    try:
        parsed: Any = json.loads(arguments)
    except ValueError as exc:
        _err.print(f"[red]error:[/red] arguments are not JSON ({exc}); pass e.g. '{{\"a\": 1}}'")
        raise typer.Exit(2) from None
    approver = TerminalApprover(yes)

    async def approve(request: CallRequest) -> Approval:
        # The question waits for a person; the pool's connections keep running meanwhile.
        return await anyio.to_thread.run_sync(approver, request)

    async def work(pool: McpClientPool) -> ToolResult:
        # Through a registry, like every call: validation, policy, messages and records.
        registry = ToolRegistry()
        await pool.register_into(registry, [server], prefix="")
        held = [h for h in pool.trust.held(server) if h.tool == tool and tool not in registry]
        if held:
            raise held[0].error()  # DENIED, naming the change and the commands
        context = task_status(registry, tool, err_console) if task else None
        return await registry.call(tool, parsed, context, options=CallOptions(approver=approve))

    result = _run(config, work, approver, server if task else None)
    if approver.refused:
        err_console.print(f"[red]not run:[/] {approver.refused}")
        raise typer.Exit(1)
    if result.record is not None and approver.person_seconds:
        # The server waited for the person's answers: that is not the call's duration.
        spent = result.record.duration_ms - approver.person_seconds * 1000
        result.record = replace(result.record, duration_ms=max(spent, 0.0))
    console.print(result_panel(result))
    for line in block_lines(result.blocks):
        console.print(line, soft_wrap=True, markup=False, highlight=False)
    if result.is_error:
        raise typer.Exit(1)


def block_lines(blocks: list[Content]) -> list[str]:
    """One line for each block a text rendering leaves out (images, audio, resources)."""
    lines = []
    for block in blocks:
        if isinstance(block, ImageContent | AudioContent):
            size = len(block.data) * 3 // 4
            lines.append(f"[{block.type}: {block.mime_type}, {size:,} bytes]")
        elif isinstance(block, ResourceContent):
            what = "resource" if block.text is not None or block.blob is not None else "link"
            name = f" {block.name}" if block.name else ""
            lines.append(f"[{what}{name}: {block.uri}]")
    return lines


add_catalog_commands(mcp_app, _run)
add_trust_commands(mcp_app, _run)


@mcp_app.command("login")
def login(config: ConfigArg, server: str) -> None:
    """Log in to an OAuth server: opens the browser (and prints the URL), then keeps the tokens."""

    async def work(pool: McpClientPool) -> bool:
        if pool.config(server).auth.type != "oauth":
            _err.print(f"[red]error:[/red] server {server!r} is not configured with OAuth")
            return False
        status = await pool.check(server)
        if status.error is not None:
            _err.print(f"[red]login failed:[/red] {status.error}")
            return False
        _out.print(f"Logged in to {server}; tokens kept in {token_path(server)} (mode 0600).")
        return True

    if not _run(config, work):
        raise typer.Exit(1)


@mcp_app.command("test")
def test(config: ConfigArg) -> None:
    """Connect to each server: protocol version, tool count, latency; exit 1 on any failure."""

    async def work(pool: McpClientPool) -> bool:
        table = Table("server", "transport", "protocol", "tools", "latency", "result")
        failures: list[str] = []
        for name in pool.servers:
            status = await pool.check(name)
            good = status.error is None
            if not good:
                failures.append(f"FAIL {name}: {status.error}")
            table.add_row(
                name,
                status.transport,
                status.protocol_version or "-",
                "-" if status.tool_count is None else str(status.tool_count),
                f"{status.latency_ms:.0f} ms" if status.latency_ms is not None else "-",
                "[green]ok[/green]" if good else "[red]failed[/red]",
            )
        _out.print(table)
        for line in failures:
            _out.print(line, soft_wrap=True, markup=False, highlight=False)
        return not failures

    if not _run(config, work):
        raise typer.Exit(1)
