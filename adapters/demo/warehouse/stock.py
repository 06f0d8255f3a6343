"""Stock levels and moves."""

from __future__ import annotations

from typing import Annotated

import anyio
from pydantic import Field

from adapters.demo.warehouse.models import BinStatus, Move, StockLine
from adapters.demo.warehouse.store import STORE
from toolkit import Injected, ToolContext, ToolError, mcp_tool


@mcp_tool(read_only=True, tags={"stock", "read"})
def get_stock(sku: str, warehouse_id: int | None = None) -> list[StockLine]:
    """Where a SKU lies and how many units.

    Args:
        sku: Stock-keeping unit, e.g. 'WIDGET-1'.
        warehouse_id: Only bins of this warehouse.
    """
    with STORE.lock:
        lines = [
            s
            for s in STORE.stock
            if s.sku == sku
            and s.quantity > 0
            and (warehouse_id is None or STORE.bins[s.bin_code].warehouse_id == warehouse_id)
        ]
    if not lines:
        raise ToolError(f"No stock of {sku!r} found. Check the SKU with the user.")
    return lines


@mcp_tool(tags={"stock", "write"})
def move_stock(
    sku: str,
    from_bin: str,
    to_bin: str,
    quantity: Annotated[int, Field(gt=0, le=10_000)],
    operator: Annotated[str, Injected] = "system",
) -> Move:
    """Move units of a SKU from one bin to another.

    Args:
        sku: Stock-keeping unit.
        from_bin: Bin to take the units from.
        to_bin: Bin to put them in.
        quantity: How many units.
        operator: Who moves them (set by the application, never by the model).
    """
    with STORE.lock:
        for code in (from_bin, to_bin):
            found = STORE.bin(code)
            if found is None:
                raise ToolError(f"Bin {code!r} does not exist. Use query_bins to list bins.")
            if found.status is BinStatus.LOCKED:
                raise ToolError(f"Bin {code!r} is locked; unlock it with set_bin_status first.")
        have = STORE.quantity(sku, from_bin)
        if have < quantity:
            raise ToolError(
                f"Only {have} units of {sku} are in {from_bin}; cannot move {quantity}."
            )
        STORE.add(sku, from_bin, -quantity)
        STORE.add(sku, to_bin, quantity)
    return Move(sku=sku, from_bin=from_bin, to_bin=to_bin, quantity=quantity, moved_by=operator)


@mcp_tool(timeout=30, tags={"stock", "slow"})
async def recount_bin(code: str, ctx: ToolContext, seconds: float = 0.3) -> dict[str, int]:
    """Count the stock in a bin again (slow: walks the bin), reporting progress.

    Args:
        code: Bin code.
        seconds: How long the count takes.
    """
    if STORE.bin(code) is None:
        raise ToolError(f"Bin {code!r} does not exist.")
    steps = 3
    for step in range(steps):
        await anyio.sleep(seconds / steps)
        await ctx.report_progress(step + 1, steps, f"counted shelf {step + 1}/{steps}")
    with STORE.lock:
        return {s.sku: s.quantity for s in STORE.stock if s.bin_code == code and s.quantity}
