"""The warehouse tools as an application would assemble them: one registry.

``toolkit inspect adapters.demo.warehouse_app:registry`` shows them; the demo and the notebooks start
from here.
"""

from __future__ import annotations

from adapters.demo.warehouse.reports import WarehouseReports
from toolkit import ToolRegistry


def build_registry() -> ToolRegistry:
    """A fresh registry with the module tools and the report methods (bound, prefixed)."""
    registry = ToolRegistry()
    registry.scan("adapters.demo.warehouse")
    registry.scan(WarehouseReports(), namespace="reports")
    return registry


registry = build_registry()
