"""Bin queries and maintenance."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from adapters.demo.warehouse.models import Bin, BinStatus
from adapters.demo.warehouse.store import STORE, TENANTS
from toolkit import ToolError, mcp_tool


def _warehouses(tenant_code: str) -> list[int]:
    try:
        return TENANTS[tenant_code]
    except KeyError:
        known = ", ".join(sorted(TENANTS))
        raise ToolError(f"Unknown tenant {tenant_code!r}. Known tenants: {known}.") from None


@mcp_tool(read_only=True, tags={"bins", "read"})
def query_bins(
    tenant_code: str,
    warehouse_id: int | None = None,
    status: Literal["active", "locked"] = "active",
) -> list[Bin]:
    """Query bin locations of a warehouse.

    Args:
        tenant_code: Tenant code of the caller.
        warehouse_id: Only bins of this warehouse.
        status: Only bins in this state.
    """
    allowed = _warehouses(tenant_code)
    if warehouse_id is not None and warehouse_id not in allowed:
        raise ToolError(
            f"Warehouse {warehouse_id} does not belong to tenant {tenant_code!r}; "
            f"its warehouses are {allowed}."
        )
    wanted = [warehouse_id] if warehouse_id is not None else allowed
    with STORE.lock:
        return [b for b in STORE.bins.values() if b.warehouse_id in wanted and b.status == status]


@mcp_tool(read_only=True, tags={"bins", "read"})
def get_bin(code: Annotated[str, Field(description="Bin code, e.g. 'A-01-03'.")]) -> Bin:
    """Look up one bin by its code."""
    found = STORE.bin(code)
    if found is None:
        raise LookupError(f"bin {code} not found")
    return found


@mcp_tool(idempotent=True, tags={"bins", "write"})
def set_bin_status(code: str, status: BinStatus) -> Bin:
    """Lock or unlock a bin.

    A locked bin takes no moves in or out.

    Args:
        code: Bin code.
        status: The new status.
    """
    with STORE.lock:
        found = STORE.bin(code)
        if found is None:
            raise ToolError(f"Bin {code!r} does not exist. Use query_bins to list valid codes.")
        found.status = status
        return found


@mcp_tool(destructive=True, tags={"bins", "write"})
def delete_bin(code: str) -> str:
    """Delete an empty bin for good.

    Args:
        code: Bin code; the bin must hold no stock.
    """
    with STORE.lock:
        if STORE.bin(code) is None:
            raise ToolError(f"Bin {code!r} does not exist.")
        if any(s.bin_code == code and s.quantity for s in STORE.stock):
            raise ToolError(f"Bin {code!r} still holds stock; move it out first.")
        del STORE.bins[code]
    return f"Bin {code} deleted."
