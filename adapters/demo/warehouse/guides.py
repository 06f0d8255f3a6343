"""What the warehouse serves besides tools: a tenant's setup as a resource, a prompt on how to
use the tools together."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapters.demo.warehouse.store import STORE, TENANTS
from toolkit import ToolError, mcp_prompt, mcp_resource


def _tenants(value: str, context: Mapping[str, str]) -> list[str]:
    return sorted(t for t in TENANTS if t.startswith(value))


@mcp_resource(
    "warehouse://tenants/{tenant_code}",
    mime_type="application/json",
    completions={"tenant_code": _tenants},
)
def tenant_setup(tenant_code: str) -> dict[str, Any]:
    """A tenant's warehouses and how many bins each has.

    Args:
        tenant_code: The tenant, e.g. 'acme'.
    """
    if tenant_code not in TENANTS:
        known = ", ".join(sorted(TENANTS))
        raise ToolError(f"Unknown tenant {tenant_code!r}. Known tenants: {known}.")
    with STORE.lock:
        bins = {
            w: sum(b.warehouse_id == w for b in STORE.bins.values()) for w in TENANTS[tenant_code]
        }
    return {"tenant": tenant_code, "warehouses": [{"id": w, "bins": n} for w, n in bins.items()]}


@mcp_prompt(title="Plan a restock")
def plan_restock(sku: str, tenant_code: str = "acme") -> str:
    """Plan where to restock an item, using the warehouse tools in order.

    Args:
        sku: The item to restock, e.g. 'WIDGET-1'.
        tenant_code: The tenant whose warehouses to use.
    """
    return (
        f"Plan a restock of {sku} for tenant {tenant_code}. First call get_stock to see where "
        f"{sku} is, then query_bins for active bins of {tenant_code} with free capacity, then "
        f"propose move_stock calls (do not run them) and say why."
    )
