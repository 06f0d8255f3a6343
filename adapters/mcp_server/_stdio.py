"""Serve over stdio: the transport Claude Desktop, Cursor and VS Code start servers with."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.stdio import stdio_server

from adapters.mcp_server._pipes import loop_pipes
from adapters.mcp_server._server import RegistryServer

__all__ = ["run_stdio", "serve_stdio"]


async def serve_stdio(server: RegistryServer) -> None:
    """Serve ``server`` on this process's stdin/stdout until the client closes stdin.

    When both are pipes (a client started the server) the event loop reads and writes them
    directly, with no task between them and the server; otherwise the SDK's threaded
    streams are used. Either way, while serving, fd 1 goes to stderr so stray ``print`` calls
    never reach the protocol. Logs must go to stderr.
    """
    async with _streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(server: RegistryServer) -> None:
    """Blocking form of :func:`serve_stdio` (for a ``main()``)."""
    anyio.run(serve_stdio, server)


@asynccontextmanager
async def _streams() -> AsyncIterator[Any]:
    async with loop_pipes() as pipes:
        if pipes is not None:
            yield pipes
            return
        async with stdio_server() as streams:
            yield streams
