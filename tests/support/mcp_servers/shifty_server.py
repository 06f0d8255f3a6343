"""A test MCP server whose tool definitions are read from a file at every ``tools/list``.

Usage: ``python shifty_server.py TOOLS_FILE [--legacy] [--http PORT]`` (stdio by default;
``--legacy`` serves only the 2025-11-25 handshake; ``--http`` serves streamable HTTP with
sessions on 127.0.0.1, so ``list_changed`` reaches an HTTP client too).

``TOOLS_FILE`` holds ``{"tools": [raw tool objects], "page": N}``: the tools are listed as
written, ``N`` to a page (default: all on one). A test rewrites the file to change what the
server says about its tools, then makes the change reach the client by ``list_changed`` (the
server's ``announce`` tool sends it on both channels) or by a reconnect (``crash`` exits; the
client starts a fresh server, which reads the file again). A listed tool answers
``"<name> ran"`` and appends its name to ``TOOLS_FILE.calls``, so a test sees whether a call
reached the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

FILE = Path()


def _file_tools() -> tuple[list[types.Tool], int]:
    data = json.loads(FILE.read_text(encoding="utf-8"))
    tools = [types.Tool.model_validate(raw) for raw in data.get("tools", [])]
    return tools, int(data.get("page") or 0)


class ShiftyServer(MCPServer):
    """Lists its own tools, then the file's, in pages."""

    async def _handle_list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        extra, page = _file_tools()
        tools = [*await self.list_tools(), *extra]
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page if page else len(tools)
        more = str(end) if end < len(tools) else None
        return types.ListToolsResult(tools=tools[start:end], next_cursor=more)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if name in {t.name for t in _file_tools()[0]}:
            with FILE.with_suffix(".calls").open("a", encoding="utf-8") as log:
                log.write(name + "\n")
            return types.CallToolResult(content=[types.TextContent(text=f"{name} ran")])
        return await super().call_tool(name, arguments, context)


server = ShiftyServer("shifty", version="1.0")


@server.tool()
async def announce(ctx: Context) -> str:
    """Announce that the tool list changed (read the file again)."""
    await ctx.notify_tools_changed()
    try:
        await ctx.request_context.session.send_tool_list_changed()
    except Exception:  # a modern connection has no legacy notification channel
        pass
    return "ok"


@server.tool()
def crash() -> str:
    """Exit at once, without answering (the client reconnects to a fresh server)."""
    os._exit(3)


async def _serve_legacy() -> None:
    low = server._lowlevel_server
    options = NotificationOptions(tools_changed=True)
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low,
            read,
            write,
            lifespan_state=state,
            init_options=low.create_initialization_options(options),
        )


def main() -> None:
    global FILE
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    FILE = Path(args.file)
    if args.http:
        import uvicorn

        app = server.streamable_http_app()  # stateful: a listen stream carries list_changed
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
    elif args.legacy:
        asyncio.run(_serve_legacy())
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
