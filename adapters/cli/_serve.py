"""``toolkit serve``: the typer front end of :func:`adapters.mcp_server.serve_command`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from adapters.mcp_server import serve_command

__all__ = ["app", "serve_cli"]


def serve_cli(
    target: Annotated[
        str | None, typer.Argument(help="Module, package, module:attribute or file.")
    ] = None,
    transport: Annotated[
        str, typer.Option(help="stdio (for desktop clients) or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP port.")] = 8000,
    token_env: Annotated[
        str | None, typer.Option(help="Env variable holding the bearer token clients must send.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="MCP config file whose servers' tools are served too.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Server name shown to clients.")] = None,
    page_size: Annotated[int | None, typer.Option(help="Tools per tools/list page.")] = None,
    stateful: Annotated[
        bool, typer.Option(help="Keep HTTP sessions (default: stateless).")
    ] = False,
    allow_host: Annotated[
        list[str] | None, typer.Option(help="Extra accepted Host header (repeatable).")
    ] = None,
    workers: Annotated[
        int, typer.Option(help="HTTP worker processes (stateless HTTP; one per core).")
    ] = 1,
    call_log: Annotated[
        str | None,
        typer.Option(
            help="SQLite file or postgresql:// URL every call is written to (toolkit calls)."
        ),
    ] = None,
    metrics: Annotated[
        bool, typer.Option("--metrics", help="Prometheus metrics at /metrics (HTTP).")
    ] = False,
    http_tools: Annotated[
        Path | None, typer.Option(help="File of HTTP endpoint tools ({'httpTools': ...}).")
    ] = None,
    allow_destructive: Annotated[
        list[str] | None,
        typer.Option(help="Run this tool needing approval without asking (repeatable; * = all)."),
    ] = None,
    callers: Annotated[
        Path | None, typer.Option(help="File mapping bearer tokens to callers (HTTP).")
    ] = None,
    tool_search: Annotated[
        int | None,
        typer.Option(
            metavar="K",
            help="List a search tool and a call tool, plus the K most used tools (0: none), "
            "instead of every tool.",
        ),
    ] = None,
    search_embedder: Annotated[
        str | None,
        typer.Option(
            metavar="MODULE:ATTR",
            help="Rank --tool-search by meaning too: a function from texts to vectors (or a "
            "function without arguments that returns one), e.g. myapp.search:embed.",
        ),
    ] = None,
    budget: Annotated[
        str | None,
        typer.Option(
            metavar="LIMITS",
            help="Each caller's budget per window, e.g. calls=100,repeats=3,window=60 "
            "(see docs/middleware.md).",
        ),
    ] = None,
    rate_limit: Annotated[
        str | None,
        typer.Option(
            metavar="LIMITS",
            help="Calls per caller and per tool in a window, e.g. caller=60,tool.search=10,"
            "window=60.",
        ),
    ] = None,
) -> None:
    """Serve the tools of TARGET as an MCP server."""
    try:
        serve_command(
            target,
            transport,  # type: ignore[arg-type]  # checked by serve_command
            host,
            port,
            token_env,
            config,
            name=name,
            page_size=page_size,
            stateless=not stateful,
            allowed_hosts=tuple(allow_host or ()),
            workers=workers,
            call_log=call_log,
            metrics=metrics,
            http_tools=http_tools,
            allow_destructive=tuple(allow_destructive or ()),
            callers=callers,
            tool_search=tool_search,
            search_embedder=search_embedder,
            budget=budget,
            rate_limit=rate_limit,
        )
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


#: A typer app with the single ``serve`` command, for mounting in the ``toolkit`` CLI.
app = typer.Typer(add_completion=False, no_args_is_help=True)
app.command("serve")(serve_cli)
