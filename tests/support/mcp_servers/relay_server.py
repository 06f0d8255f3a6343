"""A test MCP server (the SDK's MCPServer, 2025-11-25 handshake on stdio) for what a gateway
relays: background log messages at every MCP level, resource subscriptions and their updates,
titles and argument descriptions of its catalog, and a tool that returns a resource link.

Usage: ``RELAY_SECRET=... python relay_server.py`` (stdio).
"""

from __future__ import annotations

import asyncio
import os
from typing import Annotated, Any

import mcp_types
from mcp.server import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from pydantic import Field

server = MCPServer("relay", version="1.0")

#: A value the gateway's registry knows as a secret (``secrets=``), put in every log message.
SECRET = os.environ.get("RELAY_SECRET", "")

_LEVELS = ("notice", "alert", "emergency", "info")
_subscribed: dict[str, Any] = {}
_background: set[asyncio.Task[None]] = set()


@server.resource("notes://first", title="First note")
def first() -> str:
    """The first note."""
    return "first note"


@server.prompt(title="Brief me")
def brief(topic: Annotated[str, Field(description="What the brief is about")]) -> str:
    """A short brief."""
    return f"Brief me on {topic}"


@server.tool()
async def chatter(count: int, ctx: Context) -> str:
    """Log ``count`` messages in the background, after this call has returned."""
    session = ctx.request_context.session

    async def talk() -> None:
        await asyncio.sleep(0.2)
        for i in range(count):
            level: Any = _LEVELS[i % len(_LEVELS)]
            text = f"message {i} password=hunter2 key={SECRET}"
            await session.send_log_message(level, text, logger="relay")

    task = asyncio.get_running_loop().create_task(talk())
    _background.add(task)
    task.add_done_callback(_background.discard)
    return "talking"


@server.tool()
async def touch(uri: str) -> str:
    """Tell the subscriber of ``uri`` that it changed."""
    session = _subscribed.get(uri)
    if session is None:
        return "nobody subscribed"
    await session.send_resource_updated(uri)
    return "told"


@server.tool()
def crash() -> str:
    """Exit at once, without answering (the gateway reconnects to a fresh server)."""
    os._exit(3)


@server.tool()
def link() -> list[Any]:
    """A link to the first note."""
    return [
        mcp_types.ResourceLink(type="resource_link", uri="notes://first", name="first"),
    ]


async def _subscribe(
    ctx: ServerRequestContext[Any], params: mcp_types.SubscribeRequestParams
) -> dict[str, Any]:
    _subscribed[str(params.uri)] = getattr(ctx.session, "_connection", ctx.session)
    return {}


async def _unsubscribe(
    ctx: ServerRequestContext[Any], params: mcp_types.UnsubscribeRequestParams
) -> dict[str, Any]:
    _subscribed.pop(str(params.uri), None)
    return {}


async def _serve() -> None:
    low = server._lowlevel_server
    low.add_request_handler("resources/subscribe", mcp_types.SubscribeRequestParams, _subscribe)
    low.add_request_handler(
        "resources/unsubscribe", mcp_types.UnsubscribeRequestParams, _unsubscribe
    )
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low, read, write, lifespan_state=state, init_options=low.create_initialization_options()
        )


if __name__ == "__main__":
    asyncio.run(_serve())
