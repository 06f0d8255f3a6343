"""Records of the ``toolkit`` logger during a ``tools/call`` go to the calling MCP client.

While our server runs a call, records that the toolkit logs for it (retries, policy decisions,
a tool's own ``logging.getLogger("toolkit....")`` records) are sent as ``notifications/message``
at the level the client asked for, on the stream of that call, before the call's result.
Records are formatted with their arguments already redacted by the code that logs them; nothing
else leaves the process.

Only records the ``toolkit`` logger lets through exist: Python drops the others before any
handler sees them. ``toolkit serve`` sets it to INFO (unless the application chose a level);
an application serving in-process sets the level it wants relayed, such as
``logging.getLogger("toolkit").setLevel(logging.DEBUG)``. The call's own summary line
(``toolkit.calls`` at INFO) is not relayed: the client gets the result itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

import anyio

from toolkit.calls.interaction import ClientChannel, LogLevel

__all__ = ["relay_info_records", "relaying_logs"]

#: Seconds a finished call waits for its log lines to be sent before its result.
_FLUSH_SECONDS = 2.0


@dataclass
class _Relay:
    channel: ClientChannel
    loop: asyncio.AbstractEventLoop
    pending: set[asyncio.Task[None]] = field(default_factory=set)


_current: ContextVar[_Relay | None] = ContextVar("mcp_toolkit_log_relay", default=None)


def _level(levelno: int) -> LogLevel:
    if levelno >= logging.CRITICAL:
        return "critical"
    if levelno >= logging.ERROR:
        return "error"
    if levelno >= logging.WARNING:
        return "warning"
    if levelno >= logging.INFO:
        return "info"
    return "debug"


class _RelayHandler(logging.Handler):
    """Forwards a record to the client of the call it was logged in, if any."""

    def emit(self, record: logging.LogRecord) -> None:
        relay = _current.get()
        if relay is None or (record.name == "toolkit.calls" and record.levelno == logging.INFO):
            return  # no call here, or the call's own summary line (the client gets its result)
        try:
            message = self.format(record)
        except Exception:  # a broken record must never break the call
            return
        coro_args = (_level(record.levelno), message, record.name)

        def send() -> None:
            task = relay.loop.create_task(relay.channel.log(*coro_args))
            relay.pending.add(task)
            task.add_done_callback(_finished(relay))

        try:
            if asyncio.get_running_loop() is relay.loop:
                send()
                return
        except RuntimeError:
            pass
        relay.loop.call_soon_threadsafe(send)


def _finished(relay: _Relay) -> Callable[[asyncio.Task[None]], None]:
    def done(task: asyncio.Task[None]) -> None:
        relay.pending.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved, so no "never retrieved" warning; the client is gone

    return done


_handler = _RelayHandler()
_handler.setFormatter(logging.Formatter("%(message)s"))


_toolkit_logger = logging.getLogger("toolkit")


def relay_info_records() -> None:
    """Let INFO records of ``toolkit`` loggers exist, so the relay can send them; only where
    the application set no level (a serving process started by ``toolkit serve``).

    The call's own summary line (``toolkit.calls`` at INFO) is never relayed, so unless a handler
    already prints INFO (``--log-level INFO``, ``-v``), it stays below the level: otherwise every
    call would build a record that no one reads.
    """
    if _toolkit_logger.level != logging.NOTSET:
        return
    _toolkit_logger.setLevel(logging.INFO)
    summary = logging.getLogger("toolkit.calls")
    if summary.level == logging.NOTSET and not _printed(summary, logging.INFO):
        summary.setLevel(logging.WARNING)


def _printed(logger: logging.Logger | None, level: int) -> bool:
    """Whether a handler other than the relay takes ``logger``'s records at ``level``: only
    handlers' own levels count once a record is made, the ancestors' levels do not."""
    while logger is not None:
        if any(_prints(h) and h.level <= level for h in logger.handlers):
            return True
        logger = logger.parent if logger.propagate else None
    return False


def _prints(handler: logging.Handler) -> bool:
    return handler is not _handler and not isinstance(handler, logging.NullHandler)


def relaying_logs(channel: ClientChannel) -> _Relaying:
    """Send ``toolkit`` log records made inside the ``async with`` block to ``channel``; on
    leaving, wait (bounded) until they are sent, so they reach the client before the result."""
    return _Relaying(channel)


class _Relaying:
    """The block of :func:`relaying_logs`: a class, not an ``@asynccontextmanager`` generator,
    since it runs around every ``tools/call`` and a generator costs several times more to enter
    and leave; a call that logged nothing leaves without waiting for anything.
    """

    __slots__ = ("_relay", "_token")

    def __init__(self, channel: ClientChannel) -> None:
        self._relay = _Relay(channel, asyncio.get_running_loop())

    async def __aenter__(self) -> None:
        if _handler not in _toolkit_logger.handlers:
            _toolkit_logger.addHandler(_handler)
        self._token = _current.set(self._relay)

    async def __aexit__(self, *exc: object) -> None:
        _current.reset(self._token)
        relay = self._relay
        if relay.pending:
            with anyio.move_on_after(_FLUSH_SECONDS, shield=True):
                while relay.pending:
                    await asyncio.wait(set(relay.pending))
