"""Following a server's ``list_changed``: which lists it announces, and coalesced refreshes.

A server may announce a change many times in a row (a burst, or a flood from a misbehaving
server). Each list is refreshed by at most one task at a time; announcements that arrive while
it runs make exactly one more run, so a burst costs at most two refreshes, and runs start at
least :data:`MIN_GAP` seconds apart, so a flood costs at most a few refreshes a second.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Literal

import anyio.abc
import mcp_types
from mcp import Client

__all__ = ["MIN_GAP", "Coalesced", "ListFollowers", "ListKind", "announced", "changed_list"]

logger = logging.getLogger("adapters.mcp_client")

#: The lists a server may announce changes of.
ListKind = Literal["tools", "resources", "prompts"]

Refresh = Callable[[], Awaitable[None]]

#: Seconds between the starts of two refreshes of one list (a flood's rate limit).
MIN_GAP = 0.1


class Coalesced:
    """Runs ``job`` in a task group after :meth:`poke`, one run at a time.

    Args:
        job: The refresh; it should not raise (a failure is logged here as a last resort).
        min_gap: Seconds between the starts of two runs.
    """

    def __init__(self, job: Refresh, *, min_gap: float = MIN_GAP) -> None:
        self._job = job
        self._min_gap = min_gap
        self._running = False
        self._again = False

    def poke(self, task_group: anyio.abc.TaskGroup) -> None:
        """Ask for a run: starts one now, or one more after the run in progress."""
        if self._running:
            self._again = True
            return
        self._running = True
        task_group.start_soon(self._run)

    async def _run(self) -> None:
        try:
            while True:
                self._again = False
                started = anyio.current_time()
                try:
                    await self._job()
                except Exception:
                    logger.exception("a list_changed refresh failed")
                if not self._again:
                    return
                await anyio.sleep(max(0.0, started + self._min_gap - anyio.current_time()))
        finally:
            self._running = False


class ListFollowers:
    """The refreshes to run when a server's resource or prompt list changes, and who hears
    that a subscribed resource was updated."""

    def __init__(self) -> None:
        self._refreshes: dict[ListKind, list[Refresh]] = {"resources": [], "prompts": []}
        self._runs = {kind: Coalesced(self._runner(kind)) for kind in self._refreshes}
        self._updates: list[Callable[[str], None]] = []
        self._reconnects: list[Refresh] = []

    def on_reconnect(self, refresh: Refresh) -> Callable[[], None]:
        """Run ``refresh()`` after every new connection but the first (a restarted server
        forgot what this client asked of it, such as its subscriptions); returns the
        unsubscriber."""
        self._reconnects.append(refresh)
        return lambda: self._reconnects.remove(refresh)

    def on_updated(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(uri)`` when the server says the resource at ``uri`` was updated
        (``notifications/resources/updated``); returns the unsubscriber."""
        self._updates.append(listener)
        return lambda: self._updates.remove(listener)

    def updated(self, uri: str) -> None:
        """The server says the resource at ``uri`` was updated: tell the listeners."""
        for listener in list(self._updates):
            try:
                listener(uri)
            except Exception:
                logger.exception("a resource-update listener failed")

    def add(self, kind: ListKind, refresh: Refresh) -> Callable[[], None]:
        """Run ``refresh()`` after every change of list ``kind``; returns the unsubscriber.

        Raises:
            ValueError: ``kind`` is not ``"resources"`` or ``"prompts"`` (tools are the pool's).
        """
        if kind not in self._refreshes:
            raise ValueError(f"cannot follow {kind!r}: only 'resources' and 'prompts' are")
        self._refreshes[kind].append(refresh)
        return lambda: self._refreshes[kind].remove(refresh)

    def wanted(self, kind: ListKind) -> bool:
        """Whether anything follows list ``kind``."""
        return bool(self._refreshes.get(kind))

    def poke(self, kind: ListKind, task_group: anyio.abc.TaskGroup) -> None:
        """List ``kind`` changed: run its refreshes (coalesced)."""
        if self.wanted(kind):
            self._runs[kind].poke(task_group)

    def missed(self, task_group: anyio.abc.TaskGroup) -> None:
        """A new connection to the server: refresh every list, whatever changed meanwhile,
        and run the :meth:`on_reconnect` refreshes."""
        for kind in self._runs:
            self.poke(kind, task_group)
        for refresh in list(self._reconnects):
            task_group.start_soon(_logged, refresh)

    def _runner(self, kind: ListKind) -> Refresh:
        async def run() -> None:
            for refresh in list(self._refreshes[kind]):
                try:
                    await refresh()
                except Exception:
                    logger.exception("refreshing the %s of an MCP server failed", kind)

        return run


async def _logged(refresh: Refresh) -> None:
    try:
        await refresh()
    except Exception:
        logger.exception("a refresh after reconnecting to an MCP server failed")


def changed_list(message: object) -> ListKind | None:
    """The list a server notification announces as changed, if it is a ``list_changed``."""
    if isinstance(message, mcp_types.ToolListChangedNotification):
        return "tools"
    if isinstance(message, mcp_types.ResourceListChangedNotification):
        return "resources"
    if isinstance(message, mcp_types.PromptListChangedNotification):
        return "prompts"
    return None


def announced(client: Client) -> dict[ListKind, bool]:
    """Which lists the server says it announces changes of (its ``listChanged`` flags)."""
    caps = client.server_capabilities
    return {
        "tools": bool(caps.tools and caps.tools.list_changed),
        "resources": bool(caps.resources and caps.resources.list_changed),
        "prompts": bool(caps.prompts and caps.prompts.list_changed),
    }
