"""A server's log messages during a call, handed to that call's caller when it wants them.

MCP does not say which request a server's ``notifications/message`` belongs to. As with
questions (:mod:`adapters.mcp_client._asking`), a log message goes to the one call in flight on
that server, and only when its caller asked for them (``ToolContext.remote_log``, set by a
LangGraph run's stream); with no call or several calls in flight it goes to Python logging only
(``toolkit.remote.<server>``, as every message does), never to a guessed caller.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import mcp_types

from toolkit.context import LogCallback

__all__ = ["CallLogs"]

log = logging.getLogger("toolkit.mcp")


class CallLogs:
    """The calls in flight on one server, and where each wants the server's log messages."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._calls: list[LogCallback | None] = []

    @contextlib.contextmanager
    def watch(self, listener: LogCallback | None) -> Iterator[None]:
        """Count a call as in flight while the block runs; ``listener`` wants its logs."""
        self._calls.append(listener)
        try:
            yield
        finally:
            self._calls.remove(listener)

    async def relay(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        """Hand a log message to the one call in flight, if it wants it."""
        calls = self._calls
        if len(calls) != 1 or calls[0] is None:
            return
        try:
            await calls[0](params.level, params.data, params.logger)
        except Exception as exc:  # a listener's failure must not break the connection
            log.warning(
                "a log message of MCP server %r could not be handed to its caller: %s",
                self.server,
                exc,
            )
