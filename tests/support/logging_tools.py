"""Tools that log through their own ``toolkit.*`` logger, for the log relay tests."""

from __future__ import annotations

import logging

from toolkit import mcp_tool

log = logging.getLogger("toolkit.shop.orders")


@mcp_tool
def sync_pick(order_id: int) -> str:
    """Pick an order (a sync tool, run in a worker thread)."""
    log.debug("looking up order %s", order_id)
    log.info("picking order %s", order_id)
    log.warning("order %s is late", order_id)
    return "picked"


@mcp_tool
async def async_pick(order_id: int) -> str:
    """Pick an order (an async tool, run on the server's loop)."""
    log.debug("looking up order %s", order_id)
    log.info("picking order %s", order_id)
    log.warning("order %s is late", order_id)
    return "picked"
