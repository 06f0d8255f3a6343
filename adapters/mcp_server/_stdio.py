"""Serve over stdio: the transport Claude Desktop, Cursor and VS Code start servers with.

Over pipes the server's receive loop reads the pipe itself. The SDK's ``Server.run`` peeks at
the client's first request to pick the protocol era, then relays every later message to the
chosen era's loop through a task and a memory stream of its own: two hand-offs between tasks
(loop turns) per request. Our pipe reader puts back what it peeked, so :func:`_serve_pipes`
picks the era by the SDK's own rule and runs that era's loop on the pipe directly. The SDK's
private names it needs are imported here only; an SDK without them gets ``Server.run``.
"""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

try:
    from mcp.server.runner import (
        _PRE_REQUEST_REPLAY_LIMIT,
        _has_modern_envelope,
        _serve_legacy_stream,
        _serve_modern_stream,
    )
except ImportError:  # pragma: no cover - an SDK release that moved them: its own Server.run
    _ERA_LOOPS = False
else:
    _ERA_LOOPS = True

from adapters.mcp_server._pipes import LineReader, PipeWriter, loop_pipes
from adapters.mcp_server._server import RegistryServer

__all__ = ["run_stdio", "serve_stdio"]


async def serve_stdio(server: RegistryServer) -> None:
    """Serve ``server`` on this process's stdin/stdout until the client closes stdin.

    When both are pipes (a client started the server) the event loop reads and writes them
    directly, with no task between them and the server; otherwise the SDK's threaded
    streams are used. Either way, while serving, fd 1 goes to stderr so stray ``print`` calls
    never reach the protocol. Logs must go to stderr.
    """
    async with loop_pipes() as pipes:
        if pipes is not None and _ERA_LOOPS:
            await _serve_pipes(server, *pipes)
        elif pipes is not None:
            await server.run(*pipes, server.create_initialization_options())
        else:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(server: RegistryServer) -> None:
    """Blocking form of :func:`serve_stdio` (for a ``main()``)."""
    anyio.run(serve_stdio, server)


async def _serve_pipes(server: RegistryServer, reader: LineReader, writer: PipeWriter) -> None:
    """What ``Server.run`` does (its lifespan, then the era the first request opens), with
    the era's loop reading the pipe itself."""
    async with server.lifespan(server) as state:
        try:
            opening = await reader.peek_opening(_PRE_REQUEST_REPLAY_LIMIT)
            modern = (
                opening is not None
                and opening.method != "initialize"
                and _has_modern_envelope(opening.params)
            )
            if modern:
                await _serve_modern_stream(
                    server, reader, writer, lifespan_state=state, raise_exceptions=False
                )
            else:
                await _serve_legacy_stream(
                    server,
                    reader,
                    writer,
                    lifespan_state=state,
                    session_id=None,
                    init_options=server.create_initialization_options(),
                    raise_exceptions=False,
                )
        finally:
            await writer.aclose()
