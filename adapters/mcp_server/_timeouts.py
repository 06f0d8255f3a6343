"""uvicorn's HTTP/1.1 protocol with a deadline for reading each request.

Design rule: a connection may not hold the server by sending slowly or not at all. From the
moment a connection opens (or its previous response ends) the whole request, headers and
body, must arrive within ``read_timeout`` seconds, or the connection is closed. Idle sockets
and slowloris clients therefore cost a file descriptor for a bounded time only; together
with uvicorn's ``limit_concurrency`` (answering 503 past the cap) the server keeps answering.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from adapters.mcp_server._writes import GatheredWrites

__all__ = ["DEFAULT_READ_TIMEOUT", "timed_protocol"]

#: Seconds a client has to send a whole request (headers and body).
DEFAULT_READ_TIMEOUT = 10.0


class _TimedH11(H11Protocol):
    read_timeout: float = DEFAULT_READ_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: When the request being read must be in (loop time); ``None``: not reading one.
        self._read_deadline: float | None = None
        # One timer at a time, left running across requests: moving a deadline is an
        # assignment, and the timer, when it fires early, sets itself again for what is left.
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # A response's head and body leave in one write (:mod:`._writes`).
        self._gathered = GatheredWrites(transport, asyncio.get_running_loop())
        gathered: Any = self._gathered
        super().connection_made(gathered)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._read_deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            self._disarm()  # the request is in: the app's own timeouts take over

    def on_response_complete(self) -> None:
        self._gathered.flush()  # a whole response: out now, not at the end of the turn
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this keep-alive connection gets a deadline too

    def _arm(self) -> None:
        self._read_deadline = self.loop.time() + self.read_timeout
        if self._timer is None:
            self._timer = self.loop.call_at(self._read_deadline, self._check)

    def _disarm(self) -> None:
        self._read_deadline = None

    def _check(self) -> None:
        self._timer = None
        deadline = self._read_deadline
        if deadline is None:
            return  # the request came in: the next one arms a timer of its own
        if self.loop.time() < deadline:
            self._timer = self.loop.call_at(deadline, self._check)
            return
        self._read_deadline = None
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            return
        self.transport.close()


def timed_protocol(read_timeout: float) -> type[H11Protocol]:
    """The protocol class for ``uvicorn.Config(http=...)`` with this request deadline."""
    return type("TimedH11Protocol", (_TimedH11,), {"read_timeout": read_timeout})
