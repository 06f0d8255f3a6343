"""Records of the ``toolkit`` logger during a ``tools/call`` go to the calling MCP client.

While our server runs a call, records that the toolkit logs for it (retries, policy decisions,
a tool's own ``logging.getLogger("toolkit....")`` records) are sent as ``notifications/message``
at the level the client asked for, on the stream of that call. Records are formatted with their
arguments already redacted by the code that logs them; nothing else leaves the process.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar

from toolkit.interaction import ClientChannel, LogLevel

__all__ = ["relaying_logs"]

_current: ContextVar[tuple[ClientChannel, asyncio.AbstractEventLoop] | None] = ContextVar(
    "mcp_toolkit_log_relay", default=None
)


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
        target = _current.get()
        if target is None:
            return
        channel, loop = target
        try:
            message = self.format(record)
        except Exception:  # a broken record must never break the call
            return
        coro_args = (_level(record.levelno), message, record.name)

        def send() -> None:
            task = loop.create_task(channel.log(*coro_args))
            task.add_done_callback(_ignore_failure)

        try:
            if asyncio.get_running_loop() is loop:
                send()
                return
        except RuntimeError:
            pass
        loop.call_soon_threadsafe(send)


def _ignore_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved, so no "never retrieved" warning; the client is gone


_handler = _RelayHandler()
_handler.setFormatter(logging.Formatter("%(message)s"))


_toolkit_logger = logging.getLogger("toolkit")


def relaying_logs(channel: ClientChannel) -> _Relaying:
    """Send ``toolkit`` log records made inside the block to ``channel``."""
    return _Relaying(channel)


class _Relaying:
    """The block of :func:`relaying_logs`: a class, not a ``@contextmanager`` generator, since it
    runs around every ``tools/call`` and a generator costs several times more to enter and leave.
    """

    __slots__ = ("_channel", "_token")

    def __init__(self, channel: ClientChannel) -> None:
        self._channel = channel

    def __enter__(self) -> None:
        if _handler not in _toolkit_logger.handlers:
            _toolkit_logger.addHandler(_handler)
        self._token = _current.set((self._channel, asyncio.get_running_loop()))

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)
