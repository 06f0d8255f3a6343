"""Reviewing and accepting remote tool definitions: :func:`review_tools` and :func:`trust_tools`.

These are what ``toolkit mcp diff`` and ``toolkit mcp trust`` run. Both list the servers'
tools anew and compare them with the pool's lock; definitions are shown as indented JSON with
every non-ASCII or control character escaped, so what a server hid is visible and nothing it
wrote can act on a terminal.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from adapters.mcp_client._changes import changes
from adapters.mcp_client._config import selected
from adapters.mcp_client._lock import Pin
from adapters.mcp_client._sanitize import clean_tool

if TYPE_CHECKING:
    from adapters.mcp_client._pool import McpClientPool

__all__ = ["ToolChange", "review_tools", "trust_tools"]

Status = Literal["changed", "new", "removed", "unpinned"]


@dataclass(frozen=True)
class ToolChange:
    """How one tool as listed now differs from the lock.

    Attributes:
        server: The server's name in the config.
        tool: The tool's name on the server.
        status: ``changed`` (differs from its pin), ``new`` (the lock has the server but not
            the tool), ``removed`` (pinned, no longer listed: needs no approval) or
            ``unpinned`` (the lock does not have the server at all).
        old: The pinned definition (``None`` unless ``changed`` or ``removed``).
        new: The definition listed now (``None`` when ``removed``).
        changes: Where it changed (``changed`` only).
        hidden: Kinds of hidden content in its current text.
    """

    server: str
    tool: str
    status: Status
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    changes: tuple[str, ...] = ()
    hidden: frozenset[str] = frozenset()

    def diff(self) -> list[str]:
        """The change as unified-diff lines of escaped, indented JSON (old against new)."""
        before, after = _lines(self.old), _lines(self.new)
        label = f"{self.server}/{json.dumps(self.tool, ensure_ascii=True)[1:-1]}"
        lines = difflib.unified_diff(before, after, f"lock: {label}", f"server: {label}", n=3)
        return [line.rstrip("\n") for line in lines]


def _lines(definition: dict[str, Any] | None) -> list[str]:
    if definition is None:
        return []
    return json.dumps(definition, indent=2, sort_keys=True, ensure_ascii=True).splitlines()


async def review_tools(
    pool: McpClientPool, server: str | None = None, tool: str | None = None
) -> list[ToolChange]:
    """List the servers' tools now and say how each differs from the lock.

    Args:
        pool: An open pool.
        server: One server (default: every server).
        tool: One tool of ``server`` (its name on the server).

    Returns:
        Only the tools that differ, server by server, in the server's order (removed last).

    Raises:
        ToolError: A server cannot be reached.
        KeyError: ``server`` is not in the config.
    """
    out: list[ToolChange] = []
    for name in [server] if server else pool.servers:
        listed = await _listing(pool, name)
        pins = pool.trust.lock.pins(name)
        for now in listed.values():
            if tool is None or now.name == tool:
                change = _compare(name, now, pins)
                if change is not None:
                    out.append(change)
        for gone, pin in (pins or {}).items():
            if gone not in listed and (tool is None or gone == tool):
                out.append(ToolChange(name, gone, "removed", pin.definition, None))
    return out


async def trust_tools(
    pool: McpClientPool, server: str | None = None, tool: str | None = None
) -> list[ToolChange]:
    """Pin the tools as listed now, and offer them at once (registries follow).

    Trusting a whole server replaces its pins (a tool no longer listed leaves the lock);
    trusting one tool pins that tool only.

    Args:
        pool: An open pool.
        server: One server (default: every server).
        tool: One tool of ``server`` (its name on the server).

    Returns:
        What was accepted (the differences :func:`review_tools` gave before).

    Raises:
        KeyError: ``server`` is not in the config, or ``tool`` is not listed by it.
        ToolError: A server cannot be reached.
    """
    accepted = await review_tools(pool, server, tool)
    for name in [server] if server else pool.servers:
        listed = await _listing(pool, name)
        if tool is not None and tool not in listed:
            known = ", ".join(sorted(listed)) or "none"
            raise KeyError(f"server {name!r} lists no tool {tool!r}; its tools: {known}")
        chosen = {k: Pin.of(t) for k, t in listed.items() if tool is None or k == tool}
        pool.trust.lock.pin(name, chosen, replace=tool is None)
        pool.trust.forget(name)
        await pool._resync(name)
    return accepted


async def _listing(pool: McpClientPool, server: str) -> dict[str, Any]:
    """The server's tools listed anew (include/exclude applied), by name."""
    connection, config = pool.connection(server), pool.config(server)
    tools = await connection.list_tools(refresh=True)
    pool.trust.reload()
    await pool._resync(server)  # registries follow the new listing, as after list_changed
    return {t.name: t for t in tools if selected(t.name, config)}


def _compare(server: str, tool: Any, pins: dict[str, Pin] | None) -> ToolChange | None:
    current = Pin.of(tool)
    hidden = clean_tool(tool)[1]
    pin = (pins or {}).get(tool.name)
    if pin is not None and pin.sha256 == current.sha256:
        return None
    if pin is None:
        status: Status = "unpinned" if pins is None else "new"
        return ToolChange(server, tool.name, status, None, current.definition, hidden=hidden)
    found = tuple(changes(pin.definition, current.definition))
    return ToolChange(
        server, tool.name, "changed", pin.definition, current.definition, found, hidden
    )
