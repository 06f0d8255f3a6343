"""A gateway's remote servers' own log messages go on to its connected clients.

Our client pool logs a remote server's ``notifications/message`` under
``toolkit.remote.<server>``. Those that arrive outside any call (a server's background logging)
belong to no request, so they are broadcast as ``notifications/message`` to the clients that
hold a connection (stdio, stateful HTTP), at or above the level each set (``info`` until then),
with the remote server named in ``logger``. Only servers whose tools this registry serves are
relayed.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from toolkit.calls.interaction import LOG_LEVELS
from toolkit.registry import ToolRegistry

__all__ = ["relaying_remote_logs"]

_PREFIX = "toolkit.remote."
_DEFAULT_LEVEL = "info"


def _mcp_level(levelno: int) -> str:
    for threshold, name in (
        (logging.CRITICAL, "critical"),
        (logging.ERROR, "error"),
        (logging.WARNING, "warning"),
        (logging.INFO, "info"),
    ):
        if levelno >= threshold:
            return name
    return "debug"


class _Broadcast(logging.Handler):
    def __init__(
        self,
        registry: ToolRegistry,
        sessions: Callable[[], Iterable[tuple[str, Any]]],
        levels: Mapping[str, str],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        super().__init__()
        self._registry, self._sessions, self._levels, self._loop = registry, sessions, levels, loop

    def emit(self, record: logging.LogRecord) -> None:
        server = record.name[len(_PREFIX) :].split(".", 1)[0]
        if not any(getattr(tool, "server", None) == server for tool in self._registry):
            return
        try:
            data = record.getMessage()
        except Exception:  # a broken record must never break the connection's task
            return
        level = _mcp_level(record.levelno)
        self._loop.call_soon_threadsafe(self._send, level, data, f"remote:{server}")

    def _send(self, level: str, data: str, logger: str) -> None:
        for key, session in list(self._sessions()):
            threshold = self._levels.get(key, _DEFAULT_LEVEL)
            if LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold):  # type: ignore[arg-type]
                task = self._loop.create_task(_log(session, level, data, logger))
                task.add_done_callback(_ignore_failure)


async def _log(session: Any, level: str, data: str, logger: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated only from 2026-07-28 on
        await session.send_log_message(level, data, logger=logger)


def _ignore_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()  # the client is gone; the list-change broadcaster forgets it


@asynccontextmanager
async def relaying_remote_logs(
    registry: ToolRegistry,
    sessions: Callable[[], Iterable[tuple[str, Any]]],
    levels: Mapping[str, str],
) -> AsyncIterator[None]:
    """While the block runs, broadcast remote servers' log records to ``sessions()``
    (``(level key, session)`` pairs), at the level each set in ``levels``."""
    handler = _Broadcast(registry, sessions, levels, asyncio.get_running_loop())
    logger = logging.getLogger(_PREFIX.rstrip("."))
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
