"""A test MCP server on the SDK's MCPServer, with switches for each behaviour under test.

Usage: ``python echo_server.py [--legacy] [--http PORT [--token T]] [--fault KIND]``

* ``--legacy`` serves only the 2025-11-25 ``initialize`` handshake (stdio).
* ``--http PORT`` serves streamable HTTP on 127.0.0.1 (``--token``: require a bearer token).
* ``--fault exit`` exits at start; ``garbage`` writes non-JSON to stdout forever;
  ``hang`` never answers; ``stubborn`` ignores SIGTERM and stdin EOF.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from typing import Any

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

server = MCPServer("echo", version="1.0")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def slow(ms: int = 100, tag: str = "") -> str:
    """Sleep ``ms`` milliseconds, then return the tag."""
    await anyio.sleep(ms / 1000)
    return tag


#: The calls of :func:`meet` in flight, by the number each waits for.
_rooms: dict[int, dict[str, Any]] = {}


@server.tool()
async def meet(n: int, tag: str = "") -> str:
    """Wait until ``n`` calls of ``meet`` are in flight at once, then return the tag.

    Proves concurrency without a clock: calls made one after another never fill the room, and
    each answers ``"alone"`` after 30 s instead.
    """
    room = _rooms.setdefault(n, {"in": 0, "full": anyio.Event()})
    room["in"] += 1
    if room["in"] >= n:
        room["full"].set()
    with anyio.move_on_after(30):
        await room["full"].wait()
        return tag
    return "alone"


@server.tool()
async def hang() -> str:
    """Never return."""
    await anyio.sleep_forever()
    return ""


@server.tool()
def die() -> str:
    """Kill the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def fail(reason: str) -> str:
    """Fail with the given reason."""
    raise ToolError(f"cannot do it: {reason}")


@server.tool()
def picture() -> Image:
    """Return a tiny PNG."""
    return Image(data=b"\x89PNG\r\n\x1a\n", format="png")


@server.tool()
def env(name: str) -> str:
    """The value of an environment variable of this process ("<unset>" if unset)."""
    return os.environ.get(name, "<unset>")


@server.tool()
def spawn_child() -> int:
    """Start a long-running grandchild process and return its pid."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    return child.pid


@server.tool()
def whoami(ctx: Context) -> dict[str, Any]:
    """The request's _meta and selected headers, as the server received them."""
    meta = ctx.request_context.meta
    headers = getattr(ctx.request_context.request, "headers", None) or {}
    return {
        "meta": {k: v for k, v in (meta or {}).items() if k.startswith("x-")},
        "tenant_header": headers.get("x-tenant"),
    }


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and announce the new tool list."""

    def extra() -> str:
        return name

    server.add_tool(extra, name=name, description=f"Added at runtime: {name}")
    await ctx.notify_tools_changed()
    try:
        await ctx.request_context.session.send_tool_list_changed()
    except Exception:  # a modern connection has no legacy notification channel
        pass
    return "ok"


async def _serve_legacy() -> None:
    low = server._lowlevel_server
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low, read, write, lifespan_state=state, init_options=low.create_initialization_options()
        )


def _fault(kind: str) -> None:
    if kind == "exit":
        print("fatal: missing configuration", file=sys.stderr, flush=True)
        sys.exit(2)
    if kind == "garbage":
        while True:
            sys.stdout.write("this is not json-rpc\n")
            sys.stdout.flush()
            time.sleep(0.01)
    if kind == "hang":
        time.sleep(600)
    if kind == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdin.close()
        time.sleep(600)


def _http(port: int, token: str | None) -> None:
    import uvicorn
    from starlette.middleware.base import BaseHTTPMiddleware
    from starlette.responses import JSONResponse

    app = server.streamable_http_app(stateless_http=True, json_response=True)
    if token:

        async def check(request: Any, call_next: Any) -> Any:
            if request.headers.get("authorization") != f"Bearer {token}":
                return JSONResponse({"error": "invalid_token"}, status_code=401)
            return await call_next(request)

        app.add_middleware(BaseHTTPMiddleware, dispatch=check)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--http", type=int)
    parser.add_argument("--token")
    parser.add_argument("--fault")
    args = parser.parse_args()
    if args.fault:
        _fault(args.fault)
    elif args.http:
        _http(args.http, args.token)
    elif args.legacy:
        asyncio.run(_serve_legacy())
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
