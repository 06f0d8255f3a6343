"""The ``toolkit serve`` command: :func:`serve_command` and its typer front end :data:`app`."""

from __future__ import annotations

import os
import signal
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Annotated, Literal

import anyio
import typer

from adapters.mcp_server._auth import token_from_env
from adapters.mcp_server._gateway import remote_tools
from adapters.mcp_server._http import serve_http
from adapters.mcp_server._server import build_server
from adapters.mcp_server._stdio import serve_stdio
from toolkit import CallRecord
from toolkit.loader import load_registry
from toolkit.registry import ToolRegistry

__all__ = ["app", "serve_cli", "serve_command"]

TransportName = Literal["stdio", "http"]


def serve_command(
    target: str | ToolRegistry,
    transport: TransportName = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    token_env: str | None = None,
    config: str | Path | None = None,
    *,
    name: str | None = None,
    page_size: int | None = None,
    stateless: bool = True,
    allowed_hosts: tuple[str, ...] = (),
) -> None:
    """Serve the tools of ``target`` until the client hangs up (stdio) or Ctrl-C (http).

    Args:
        target: A registry, or where to find one: a module or package (its decorated
            functions), ``module:attribute`` or a file path.
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: HTTP bind address.
        port: HTTP port.
        token_env: Environment variable holding the bearer token HTTP clients must send.
        config: An MCP config file (``mcpServers``) whose servers' tools are served too,
            prefixed with each server's name.
        name: ``serverInfo.name`` (default: the target).
        page_size: Tools per ``tools/list`` page (default: all).
        stateless: Serve HTTP without sessions (default).
        allowed_hosts: More ``Host`` values the HTTP server accepts.

    Raises:
        ValueError: ``transport`` is unknown, ``token_env`` is set for stdio or names an empty
            variable, or ``target`` holds no tools (``RegistrationError``).
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'http'.")
    if token_env and transport == "stdio":
        raise ValueError(
            "--token-env only applies to --transport http: a stdio server is reachable only by "
            "the process that started it."
        )
    token = token_from_env(token_env) if token_env else None
    registry = load_registry(target)
    server_name = name or (target if isinstance(target, str) else "mcp-toolkit")
    server = build_server(registry, name=server_name, page_size=page_size)
    registry.subscribe(_log_call)

    async def main() -> None:
        async with AsyncExitStack() as stack:
            if config is not None:
                remote = await stack.enter_async_context(remote_tools(registry, config))
                _say(f"Added {len(remote)} remote tools from {config}")
            if transport == "stdio":
                _stop_at_once_on_ctrl_c()
                _say(
                    f"Serving {len(registry)} tools from {server_name} over stdio "
                    "(MCP messages on stdin/stdout; Ctrl-C stops)"
                )
                await serve_stdio(server)
                return
            auth = f" (bearer token from ${token_env})" if token_env else ""
            _say(f"Serving {len(registry)} tools at http://{host}:{port}/mcp{auth}")
            await serve_http(
                server,
                host=host,
                port=port,
                token=token,
                stateless=stateless,
                allowed_hosts=allowed_hosts,
            )

    anyio.run(main)


def _log_call(record: CallRecord) -> None:
    """One line per call on stderr: tool, outcome code, time and the ref messages quote."""
    code = record.code.value if record.code else "ok"
    _say(f"call {record.tool} {code} {record.duration_ms:.0f} ms ref {record.call_id}")


def _stop_at_once_on_ctrl_c() -> None:
    """Ctrl-C ends a stdio server now, with exit 130, even while a thread waits on stdin."""

    def stop(signum: int, frame: object) -> None:
        os.write(2, b"Stopped (Ctrl-C).\n")  # fd 2 directly: no lock a handler could deadlock on
        os._exit(130)

    signal.signal(signal.SIGINT, stop)


def _say(message: str) -> None:
    # stdout carries the protocol on stdio, so everything for people goes to stderr.
    print(message, file=sys.stderr)


def serve_cli(
    target: Annotated[str, typer.Argument(help="Module, package, module:attribute or file.")],
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
        )
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


#: A typer app with the single ``serve`` command, for mounting in the ``toolkit`` CLI.
app = typer.Typer(add_completion=False, no_args_is_help=True)
app.command("serve")(serve_cli)
