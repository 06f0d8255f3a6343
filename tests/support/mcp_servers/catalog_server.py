"""A test MCP server (the SDK's MCPServer) whose resources and prompts change at runtime.

Usage: ``python catalog_server.py [--legacy]`` (stdio; ``--legacy`` serves only the
2025-11-25 handshake, advertising ``listChanged`` for resources and prompts).

Its tools add or drop a resource or prompt and announce it on both channels (the
2026-07-28 listen stream and the 2025-11-25 notification); ``break_listing`` makes every
later ``resources/list`` fail; ``flood`` announces a change many times; ``listings`` says how
many ``resources/list`` requests it answered; ``crash`` exits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from mcp.server import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources.types import FunctionResource
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server


class CatalogServer(MCPServer):
    """Counts ``resources/list`` requests and fails them once broken."""

    broken = False
    listings = 0

    async def list_resources(self) -> list[Any]:
        type(self).listings += 1
        if self.broken:
            raise RuntimeError("the resource index is being rebuilt")
        return await super().list_resources()


server = CatalogServer("catalog", version="1.0")


@server.resource("notes://first")
def first() -> str:
    """The first note."""
    return "first note"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


async def _announce(ctx: Context, kind: str) -> None:
    if kind == "resources":
        await ctx.notify_resources_changed()
    else:
        await ctx.notify_prompts_changed()
    session = ctx.request_context.session
    try:
        if kind == "resources":
            await session.send_resource_list_changed()
        else:
            await session.send_prompt_list_changed()
    except Exception:  # a modern connection has no legacy notification channel
        pass


@server.tool()
async def add_note(name: str, ctx: Context) -> str:
    """Add the resource ``notes://<name>`` and announce the new resource list."""
    text = f"note {name}"
    server.add_resource(FunctionResource(uri=f"notes://{name}", name=name, fn=lambda: text))
    await _announce(ctx, "resources")
    return "ok"


@server.tool()
async def drop_note(name: str, ctx: Context) -> str:
    """Remove the resource ``notes://<name>`` and announce the new resource list."""
    del server._resource_manager._resources[f"notes://{name}"]
    await _announce(ctx, "resources")
    return "ok"


@server.tool()
async def add_prompt(name: str, ctx: Context) -> str:
    """Add a prompt called ``name`` and announce the new prompt list."""

    def prompt(topic: str) -> str:
        return f"{name}: {topic}"

    server.add_prompt(Prompt.from_function(prompt, name=name, description=f"Prompt {name}"))
    await _announce(ctx, "prompts")
    return "ok"


@server.tool()
async def break_listing(ctx: Context) -> str:
    """Make every later ``resources/list`` fail, and announce a change."""
    CatalogServer.broken = True
    await _announce(ctx, "resources")
    return "ok"


@server.tool()
async def flood(count: int, ctx: Context) -> str:
    """Announce a resource-list change ``count`` times in a row."""
    for _ in range(count):
        await _announce(ctx, "resources")
    return "ok"


@server.tool()
def crash() -> str:
    """Exit at once, without answering (the pool reconnects to a fresh server)."""
    os._exit(3)


@server.tool()
def listings() -> int:
    """How many ``resources/list`` requests were answered or refused so far."""
    return CatalogServer.listings


async def _serve_legacy() -> None:
    low = server._lowlevel_server
    options = NotificationOptions(resources_changed=True, prompts_changed=True)
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(
            low,
            read,
            write,
            lifespan_state=state,
            init_options=low.create_initialization_options(options),
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--legacy", action="store_true")
    if parser.parse_args().legacy:
        asyncio.run(_serve_legacy())
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
