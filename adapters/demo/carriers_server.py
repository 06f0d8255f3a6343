"""A shipping-carrier MCP server: someone else's tools, reached over stdio.

It stands for the remote servers a team connects next to its own functions. Run it alone with
``python -m adapters.demo.carriers_server`` (stdio), or let a pool start it from
:func:`adapters.demo.carriers_server_config` or ``examples/mcp.json``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

server = MCPServer("carriers", version="1.0", instructions="Shipping quotes and parcel tracking.")

_RATES = {"DE": 4.9, "FR": 5.5, "US": 18.0, "JP": 24.0}
_PARCELS = {
    "TRK-1001": "delivered",
    "TRK-1002": "in transit: Leipzig hub",
    "TRK-1003": "awaiting pickup",
}


@server.tool()
def quote_shipment(
    weight_kg: Annotated[float, Field(gt=0, le=70, description="Parcel weight in kg.")],
    country: Annotated[str, Field(description="Destination country, ISO code like 'DE'.")],
    service: Literal["standard", "express"] = "standard",
) -> dict[str, float | str]:
    """Price a parcel shipment to a country."""
    rate = _RATES.get(country.upper())
    if rate is None:
        raise ToolError(f"No service to {country!r}; we ship to {', '.join(sorted(_RATES))}.")
    price = rate + 1.2 * weight_kg * (2 if service == "express" else 1)
    return {"country": country.upper(), "service": service, "price_eur": round(price, 2)}


@server.tool()
def track_parcel(
    tracking_id: Annotated[str, Field(description="Tracking id like 'TRK-1001'.")],
) -> str:
    """Where a parcel is now."""
    status = _PARCELS.get(tracking_id)
    if status is None:
        raise ToolError(f"Unknown tracking id {tracking_id!r}.")
    return status


def main() -> None:
    """Serve the carriers tools over stdio until the client closes the pipe."""
    server.run("stdio")


if __name__ == "__main__":
    main()
