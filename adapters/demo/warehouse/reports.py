"""A service object whose methods are tools (registered bound to an instance)."""

from __future__ import annotations

from adapters.demo.warehouse.store import STORE, Store
from toolkit import ToolContext, mcp_tool


class WarehouseReports:
    """Reports over one store; scan an instance to register its methods."""

    def __init__(self, store: Store = STORE) -> None:
        self.store = store

    @mcp_tool(read_only=True, tags={"reports", "read"})
    def utilisation(self, warehouse_id: int) -> dict[str, float]:
        """Share of capacity in use, per bin of a warehouse.

        Args:
            warehouse_id: The warehouse.
        """
        with self.store.lock:
            bins = [b for b in self.store.bins.values() if b.warehouse_id == warehouse_id]
            return {
                b.code: round(
                    sum(s.quantity for s in self.store.stock if s.bin_code == b.code)
                    / (b.capacity or 1),
                    3,
                )
                for b in bins
            }

    @mcp_tool(read_only=True, tags={"reports", "read"})
    def my_tenant(self, ctx: ToolContext) -> str:
        """Which tenant the current user acts for (from the application, not the model)."""
        return str(ctx.get("tenant", "unknown"))
