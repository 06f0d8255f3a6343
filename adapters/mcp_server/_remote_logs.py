"""A gateway's remote servers' own log messages go on to the connected clients allowed to hear.

Our client pool logs a remote server's ``notifications/message`` under
``toolkit.remote.<server>``. Those that arrive outside any call (a server's background logging)
belong to no request, so they are sent as ``notifications/message`` to the clients that hold a
connection (stdio, stateful HTTP), at or above the level each set (``info`` until then), with
the remote server named in ``logger`` and the server's own level (``notice``, ``alert`` and
``emergency`` stay what they are). Only servers whose tools this registry serves are relayed.

Rule: every surface answers to the caller, and secrets are masked wherever text leaves the
process. A message goes only to a client whose caller sees at least one of that server's tools
(:meth:`toolkit.catalog.served_view.ServedView.sees_server`); its text passes the processor's scrubber
and the registry's ``secrets`` first (:func:`toolkit.catalog.served_view.outgoing_text`); and each
server is heard at most :data:`RATE` messages a second (bursts of :data:`BURST`): the excess is
dropped, counted in :attr:`RemoteLogRelay.dropped` and reported in a warning.
"""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from toolkit.calls.interaction import LOG_LEVELS
from toolkit.catalog.served_view import outgoing_text
from toolkit.registry import ToolRegistry

__all__ = ["BURST", "RATE", "RemoteLogRelay", "relaying_remote_logs"]

logger = logging.getLogger("adapters.mcp_server")

_PREFIX = "toolkit.remote."
_DEFAULT_LEVEL = "info"

#: Messages a second relayed per remote server, and the burst allowed above it.
RATE = 20.0
BURST = 100.0

#: Seconds a connection's answer to "may it hear this server?" is reused (one policy round
#: per tool, per connection and server, rather than per message).
HEARS_FOR = 5.0

#: ``hears(session, server)``: whether the caller of a connection may hear ``server``.
Hears = Callable[[Any, str], Awaitable[bool]]


def _mcp_level(record: logging.LogRecord) -> str:
    own = getattr(record, "mcp_level", None)
    if own in LOG_LEVELS:
        return str(own)
    for threshold, name in (
        (logging.CRITICAL, "critical"),
        (logging.ERROR, "error"),
        (logging.WARNING, "warning"),
        (logging.INFO, "info"),
    ):
        if record.levelno >= threshold:
            return name
    return "debug"


class _Bucket:
    """A token bucket: :meth:`take` is ``False`` once the rate and burst are spent."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.at = burst, time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class RemoteLogRelay(logging.Handler):
    """Relays remote servers' log records to the connections whose callers may hear them.

    Attributes:
        dropped: Messages dropped, per remote server, for going over the rate.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        sessions: Callable[[], Iterable[tuple[str, Any]]],
        levels: Mapping[str, str],
        loop: asyncio.AbstractEventLoop,
        hears: Hears | None = None,
    ) -> None:
        super().__init__()
        self._registry, self._sessions, self._levels, self._loop = registry, sessions, levels, loop
        self._hears = hears
        self._buckets: dict[str, _Bucket] = {}
        self._warned_at: dict[str, float] = {}
        #: (connection id, server) -> (when, answer, the connection: an id can be reused).
        self._heard: dict[tuple[int, str], tuple[float, bool, Any]] = {}
        self.dropped: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        server = record.name[len(_PREFIX) :].split(".", 1)[0]
        if not any(getattr(tool, "server", None) == server for tool in self._registry):
            return
        try:
            data = record.getMessage()
        except Exception:  # a broken record must never break the connection's task
            return
        level = _mcp_level(record)
        self._loop.call_soon_threadsafe(self._relay, server, level, data)

    def _relay(self, server: str, level: str, data: str) -> None:
        bucket = self._buckets.setdefault(server, _Bucket(RATE, BURST))
        if not bucket.take():
            self._drop(server)
            return
        text = outgoing_text(self._registry, data)
        for key, session in list(self._sessions()):
            threshold = self._levels.get(key, _DEFAULT_LEVEL)
            if LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold):  # type: ignore[arg-type]
                task = self._loop.create_task(self._send(session, server, level, text))
                task.add_done_callback(_ignore_failure)

    async def _send(self, session: Any, server: str, level: str, text: str) -> None:
        if not await self._may_hear(session, server):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated only from 2026-07-28 on
            await session.send_log_message(level, text, logger=f"remote:{server}")

    async def _may_hear(self, session: Any, server: str) -> bool:
        if self._hears is None:
            return True
        now, key = time.monotonic(), (id(session), server)
        known = self._heard.get(key)
        if known is not None and known[2] is session and now - known[0] < HEARS_FOR:
            return bool(known[1])
        answer = await self._hears(session, server)
        if len(self._heard) >= 10_000:
            self._heard.clear()
        self._heard[key] = (now, answer, session)
        return answer

    def _drop(self, server: str) -> None:
        self.dropped[server] = self.dropped.get(server, 0) + 1
        now = time.monotonic()
        if now - self._warned_at.get(server, -60.0) >= 10.0:
            self._warned_at[server] = now
            logger.warning(
                "MCP server %r logs faster than %g messages a second: %d of its messages were "
                "dropped so far instead of being relayed to clients",
                server,
                RATE,
                self.dropped[server],
            )


def _ignore_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # the client is gone; the list-change broadcaster forgets it


@asynccontextmanager
async def relaying_remote_logs(
    registry: ToolRegistry,
    sessions: Callable[[], Iterable[tuple[str, Any]]],
    levels: Mapping[str, str],
    hears: Hears | None = None,
) -> AsyncIterator[RemoteLogRelay]:
    """While the block runs, relay remote servers' log records to ``sessions()``
    (``(level key, session)`` pairs) whose caller ``hears`` the server, at the level each set
    in ``levels``."""
    handler = RemoteLogRelay(registry, sessions, levels, asyncio.get_running_loop(), hears)
    remote = logging.getLogger(_PREFIX.rstrip("."))
    remote.addHandler(handler)
    try:
        yield handler
    finally:
        remote.removeHandler(handler)
