"""Tell connected clients that a list changed: tools, resources or prompts (``list_changed``).

Two eras, two channels: a 2026-07-28 client opens a ``subscriptions/listen`` stream and gets
the event there (through the SDK's subscription bus); a 2025-11-25 client that completed the
handshake on a duplex connection (stdio, stateful HTTP) gets
``notifications/{tools,resources,prompts}/list_changed`` on that connection. Changes may come
from any thread and in bursts (a ``scan`` adds many tools, a gateway refresh swaps a remote
server's resources): each marks its list, and one broadcaster task sends one notification per
changed list per burst.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    ToolsListChanged,
)

from adapters.mcp_server._channel import session_key

__all__ = ["ListChangeNotifier", "ListKind"]

logger = logging.getLogger(__name__)

#: The lists a server announces changes of.
ListKind = Literal["tools", "resources", "prompts"]

#: Per list: the listen-stream event and the handshake-era ``ServerSession`` method.
_CHANNELS: dict[ListKind, tuple[Callable[[], ServerEvent], str]] = {
    "tools": (ToolsListChanged, "send_tool_list_changed"),
    "resources": (ResourcesListChanged, "send_resource_list_changed"),
    "prompts": (PromptsListChanged, "send_prompt_list_changed"),
}

#: Upper bound on remembered handshake connections; the oldest is forgotten first.
_MAX_SESSIONS = 1024


def _no_values(ctx: object) -> dict[str, Any]:
    """No caller values (a server without callers)."""
    return {}


class ListChangeNotifier:
    """Broadcasts list changes (tools, resources, prompts) to every client that can hear them.

    Args:
        on_change: Called synchronously on every tool-list change (e.g. to drop a cache).
    """

    def __init__(self, on_change: Callable[[], None]) -> None:
        self._on_change = on_change
        self.bus = InMemorySubscriptionBus()
        self.listen_handler = ListenHandler(self.bus)
        #: Remember handshake clients arriving over HTTP (only a stateful HTTP app sets it).
        self.track_http = False
        #: Who a handshake comes from (the caller's context values), kept per connection so
        #: broadcasts that belong to no request can still be scoped to the caller.
        self.identify: Callable[[ServerRequestContext[Any, Any]], dict[str, Any]] = _no_values
        self._sessions: dict[int, ServerSession] = {}
        self._keys: dict[int, str] = {}
        self._values: dict[int, dict[str, Any]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._pending: set[ListKind] = set()
        self._lock = threading.Lock()
        self._depth = 0

    def registry_changed(self) -> None:
        """The tool registry's ``on_change`` callback; safe to call from any thread."""
        self._on_change()
        self.changed("tools")

    def changed(self, kind: ListKind) -> None:
        """Announce that list ``kind`` changed; safe to call from any thread.

        Calls before the next broadcast coalesce into one notification per list.
        """
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return  # not serving: nobody to tell
        with self._lock:
            self._pending.add(kind)
        loop.call_soon_threadsafe(wake.set)

    def watcher(self, kind: ListKind) -> Callable[[], None]:
        """A change listener announcing list ``kind`` (for ``registry.resources.on_change``)."""
        return lambda: self.changed(kind)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the broadcaster while the server runs (entered by the server's lifespan)."""
        self._depth += 1
        if self._depth > 1:  # several in-process connections share one broadcaster
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        self._pending = set()
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._broadcast, self._wake)
                try:
                    yield
                finally:
                    group.cancel_scope.cancel()
        finally:
            self._loop = self._wake = None
            self._depth -= 1
            self.listen_handler.close()

    def passes_through(self, method: str, version: str, params: object) -> bool:
        """Whether :meth:`__call__` only hands such a message on (:mod:`._chain`)."""
        return method != "notifications/initialized"

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: remember each client that completes the handshake."""
        result = await call_next(ctx)
        if ctx.method == "notifications/initialized" and (ctx.request is None or self.track_http):
            if len(self._sessions) >= _MAX_SESSIONS:
                self._forget(next(iter(self._sessions)))
            self._sessions[id(ctx.session)] = ctx.session
            self._keys[id(ctx.session)] = session_key(ctx)
            self._values[id(ctx.session)] = self.identify(ctx)
        return result

    def sessions(self) -> list[tuple[str, ServerSession]]:
        """The remembered handshake connections, each with its log-level key."""
        return [(self._keys.get(k, ""), s) for k, s in list(self._sessions.items())]

    def values_of(self, session: object) -> dict[str, Any]:
        """The caller's context values of a remembered connection (``{}`` if unknown)."""
        return dict(self._values.get(id(session), {}))

    def _forget(self, key: int) -> None:
        self._sessions.pop(key, None)
        self._keys.pop(key, None)
        self._values.pop(key, None)

    async def _broadcast(self, wake: asyncio.Event) -> None:
        while True:
            await wake.wait()
            wake.clear()
            with self._lock:
                kinds, self._pending = self._pending, set()
            for kind, (event, method) in _CHANNELS.items():
                if kind in kinds:
                    await self._send(event(), method)

    async def _send(self, event: ServerEvent, method: str) -> None:
        await self.bus.publish(event)
        for key, session in list(self._sessions.items()):
            try:
                await getattr(session, method)()
            except Exception:  # the connection is gone: forget it
                logger.debug("dropping a closed connection from list_changed broadcasts")
                self._forget(key)
