"""uvicorn's HTTP/1.1 protocol with a deadline for reading each request.

Design rule: a connection may not hold the server by sending slowly or not at all. From the
moment a connection opens (or its previous response ends) the whole request, headers and
body, must arrive within ``read_timeout`` seconds, or the connection is closed. Idle sockets
and slowloris clients therefore cost a file descriptor for a bounded time only; together
with uvicorn's ``limit_concurrency`` (answering 503 past the cap) the server keeps answering.

The parser is ``httptools`` (uvicorn's fast one, in the ``mcp`` extra: about a third fewer
instructions per request than ``h11``) where it is installed, else ``h11``. Both bound a
request's head (its target and headers) at 16 KiB, answering 400 and closing past it: h11 a
head still incomplete at that size, the httptools protocol here any head over it, however fast
it arrives (llhttp has no bound of its own).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from adapters.mcp_server._writes import GatheredWrites

try:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - the mcp extra installs it
    httptools = None  # type: ignore[assignment]

__all__ = [
    "DEFAULT_PROTOCOL",
    "DEFAULT_READ_TIMEOUT",
    "MAX_HEAD_BYTES",
    "BoundedHttpProtocol",
    "timed_protocol",
]

#: Seconds a client has to send a whole request (headers and body).
DEFAULT_READ_TIMEOUT = 10.0
#: Bytes of a request's target and headers (h11's default bound, kept with either parser).
MAX_HEAD_BYTES = 16 * 1024

if TYPE_CHECKING:
    _Protocol = H11Protocol
else:
    _Protocol = object


class _ReadDeadline(_Protocol):
    """The deadline and the one write per response, for either uvicorn protocol class."""

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


class _TimedH11(_ReadDeadline, H11Protocol):  # type: ignore[misc]
    pass


if httptools is not None:

    class _HeadTooLarge(httptools.HttpParserError):  # type: ignore[misc]
        """Raised from a parser callback: uvicorn answers 400 and closes, as h11 does."""

    class _TimedHttpTools(_ReadDeadline, HttpToolsProtocol):  # type: ignore[misc]
        # llhttp has no bound of its own on a request's head: uvicorn would gather headers
        # for as long as a client sends them. The bound is h11's, counted as they arrive.
        _head_bytes = 0

        def on_message_begin(self) -> None:
            self._head_bytes = 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def send_400_response(self, msg: str) -> None:
            if self._head_bytes > MAX_HEAD_BYTES:  # say which bound, and what to do
                msg = (
                    f"The request line and headers are over {MAX_HEAD_BYTES} bytes: send "
                    "fewer or shorter headers."
                )
            super().send_400_response(msg)

        def _count(self, size: int) -> None:
            self._head_bytes += size
            if self._head_bytes > MAX_HEAD_BYTES:
                raise _HeadTooLarge("request head too large")


def timed_protocol(read_timeout: float, parser: str = "auto") -> type[Any]:
    """The protocol class for ``uvicorn.Config(http=...)`` with this request deadline.

    Args:
        read_timeout: Seconds a client has to send a whole request.
        parser: ``"httptools"``, ``"h11"``, or ``"auto"``: httptools where it is installed.

    Raises:
        ValueError: ``parser`` is unknown, or ``"httptools"`` is not installed.
    """
    if parser not in ("auto", "httptools", "h11"):
        raise ValueError(f"unknown HTTP parser {parser!r}: use 'auto', 'httptools' or 'h11'")
    if parser == "httptools" and httptools is None:
        raise ValueError("the HTTP parser 'httptools' is not installed: pip install httptools")
    fast = httptools is not None and parser != "h11"
    base: type[Any] = _TimedHttpTools if fast else _TimedH11
    doc = (
        f"uvicorn's HTTP/1.1 protocol ({'httptools' if fast else 'h11'}): each request must "
        f"arrive within {read_timeout:g} s, its head within {MAX_HEAD_BYTES // 1024} KiB."
    )
    namespace = {"read_timeout": read_timeout, "__doc__": doc, "__module__": __name__}
    return type(f"Timed{base.__name__[6:]}", (base,), namespace)


#: uvicorn's protocol with this server's bounds at their defaults (a 10 s read deadline, a
#: 16 KiB head), for a server started outside ``toolkit serve``:
#: ``uvicorn --factory adapters.mcp_server:create_app --http adapters.mcp_server:BoundedHttpProtocol``.
#: A worker process imports it by that path (a class made at run time cannot reach it).
BoundedHttpProtocol = timed_protocol(DEFAULT_READ_TIMEOUT)
DEFAULT_PROTOCOL = "adapters.mcp_server:BoundedHttpProtocol"
