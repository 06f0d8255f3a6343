"""Serve over stdio: the transport Claude Desktop, Cursor and VS Code start servers with."""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from adapters.mcp_server._server import RegistryServer

__all__ = ["run_stdio", "serve_stdio"]


async def serve_stdio(server: RegistryServer) -> None:
    """Serve ``server`` on this process's stdin/stdout until the client closes stdin.

    Logs must go to stderr: stdout carries the protocol.
    """
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(server: RegistryServer) -> None:
    """Blocking form of :func:`serve_stdio` (for a ``main()``)."""
    anyio.run(serve_stdio, server)
