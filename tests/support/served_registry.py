"""Tools served by the MCP server tests: ``python -m adapters.mcp_server tests.support.served_registry:registry``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import anyio
from pydantic import Field

from toolkit import ToolContext, ToolRegistry, mcp_tool

#: Calls of ``slow`` that were cancelled (in-process servers).
CANCELLED: list[str] = []


@mcp_tool(read_only=True, idempotent=True, title="Echo")
def echo(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: What to send back.
    """
    return text


@mcp_tool(read_only=True)
def add(a: int, b: Annotated[int, Field(ge=0)] = 1) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number, not negative.
    """
    return a + b


@mcp_tool(read_only=True)
def find_bin(code: str) -> dict[str, str]:
    """Find a warehouse bin by its code.

    Args:
        code: The bin code, such as B-12.
    """
    if not code.startswith("B-"):
        raise ValueError(f"bin {code} not found in warehouse; bin codes look like B-12")
    return {"code": code, "zone": "north"}


@mcp_tool
async def slow(steps: int, context: ToolContext) -> str:
    """Work for ``steps`` tenths of a second, reporting progress after each.

    Args:
        steps: How many tenths of a second to work.
    """
    try:
        for step in range(steps):
            await context.report_progress(step + 1, steps, f"step {step + 1}")
            await anyio.sleep(0.1)
    except anyio.get_cancelled_exc_class():
        CANCELLED.append(context.call_id)
        marker = os.environ.get("SERVED_REGISTRY_CANCEL_MARKER")
        if marker:
            Path(marker).write_text(context.call_id)
        raise
    return f"done after {steps} steps"


def build(*, strict_output: bool = False) -> ToolRegistry:
    """A fresh registry with the tools above."""
    reg = ToolRegistry(strict_output=strict_output)
    for fn in (echo, add, find_bin, slow):
        reg.register(fn)
    return reg


def numbered(count: int) -> ToolRegistry:
    """A registry of ``count`` trivial tools ``tool_0`` … (for paging and benchmarks)."""
    reg = ToolRegistry()
    for i in range(count):
        reg.register(echo, name=f"tool_{i}")
    return reg


registry = build()
