"""How each server of a pool is doing: :class:`ServerStatus` and its HTML table."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

from adapters.mcp_client._connection import ConnectionState
from toolkit.views import html_table

__all__ = ["ServerStatus", "status_table"]


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """A server as the pool sees it.

    Attributes:
        name: The config key.
        transport: ``stdio``, ``streamable_http`` or ``sse``.
        state: ``idle`` (not connected yet), ``connecting``, ``ready``, ``failed``, ``closed``.
        protocol_version: The negotiated MCP version, once connected.
        tool_count: Tools listed (after include/exclude), ``None`` before the first listing.
        error: The last connect failure's message.
        latency_ms: Duration of the last :meth:`McpClientPool.check`, if run.
    """

    name: str
    transport: str
    state: ConnectionState
    protocol_version: str | None
    tool_count: int | None
    error: str | None = None
    latency_ms: float | None = None


def status_table(statuses: Iterable[ServerStatus]) -> str:
    """The servers as an HTML table (a failed state and its error in red)."""
    rows = []
    for s in statuses:
        state = html.escape(s.state)
        if s.state == "failed":
            state = f"<span style='color:#b00'>{state}</span>"
        rows.append(
            [
                f"<b>{html.escape(s.name)}</b>",
                html.escape(s.transport),
                state,
                html.escape(s.protocol_version or ""),
                "" if s.tool_count is None else str(s.tool_count),
                "" if s.latency_ms is None else f"{s.latency_ms:.0f} ms",
                f"<span style='color:#b00'>{html.escape(s.error)}</span>" if s.error else "",
            ]
        )
    n = len(rows)
    return html_table(
        ("server", "transport", "state", "protocol", "tools", "check", "error"),
        rows,
        f"MCP client pool: {n} server" + ("" if n == 1 else "s"),
    )
