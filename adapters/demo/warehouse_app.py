"""The warehouse tools as an application would assemble them: one registry.

``toolkit inspect adapters.demo.warehouse_app:registry`` shows them; the demo and the notebooks start
from here.
"""

from __future__ import annotations

from adapters.demo.warehouse.reports import WarehouseReports
from toolkit import ToolRegistry


def build_registry() -> ToolRegistry:
    """A fresh registry with the module tools and the report methods (bound, prefixed).

    The tools return what they declare, so their output is enforced (``strict_output``): a
    value that broke its return type would be an error, and an MCP server publishes their
    output schemas as a promise.
    """
    registry = ToolRegistry(strict_output=True)
    registry.scan("adapters.demo.warehouse")
    registry.scan(WarehouseReports(), namespace="reports")
    return registry


registry = build_registry()
