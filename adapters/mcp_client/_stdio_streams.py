"""A stdio server's pipes as the SDK's streams, with no task between the pipes and the SDK.

The SDK's session reads its messages in one task of its own and sends from the callers'
tasks. Memory streams with a pump task and a writer task between them and the pipes cost two
hand-offs between tasks (loop turns) per request; here the session's reader reads and parses
stdout itself (:class:`StdoutReader`), and each sender writes its own line (:class:`StdinWriter`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import suppress

import anyio
import anyio.abc
from mcp.shared.message import SessionMessage

__all__ = ["StdinWriter", "StdoutReader"]


class StdoutReader:
    """The server's messages (a generator over its stdout) as the SDK's read stream.

    The stream ends (``EndOfStream``) when stdout ends, is closed, or the generator stops
    (a server that broke the protocol); ``on_eof`` runs once then.
    """

    def __init__(self, messages: AsyncIterator[SessionMessage], on_eof: Callable[[], None]) -> None:
        self._messages = messages
        self._on_eof = on_eof
        self._ended = False

    async def receive(self) -> SessionMessage | Exception:
        """The next message.

        Raises:
            anyio.EndOfStream: The server's stdout ended (or the reading was stopped).
        """
        if self._ended:
            raise anyio.EndOfStream
        try:
            return await anext(self._messages)
        except (
            StopAsyncIteration,
            anyio.EndOfStream,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
        ):
            self._end()
            raise anyio.EndOfStream from None

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._on_eof()

    async def aclose(self) -> None:
        """Stop reading (the transport closes the pipe itself)."""
        self._end()
        aclose = getattr(self._messages, "aclose", None)
        if aclose is not None:
            # RuntimeError: still running in a reader that is being torn down.
            with suppress(RuntimeError):
                await aclose()

    def __aiter__(self) -> StdoutReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> StdoutReader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._end()


class StdinWriter:
    """The server's stdin as the SDK's write stream: a message is written by the task that
    sends it, with no writer task to hand it to (one task switch less per message).

    Writes of concurrent senders never interleave (each line is one buffered write). A failed
    write ends the read side too (``on_broken``), so calls in flight fail as a lost connection;
    later sends raise ``BrokenResourceError``, sends after :meth:`close` ``ClosedResourceError``.
    """

    def __init__(
        self, stdin: anyio.abc.ByteSendStream, on_broken: Callable[[], Awaitable[None]]
    ) -> None:
        self._stdin = stdin
        self._on_broken = on_broken
        self._closed = False
        self._broken = False

    async def send(self, item: SessionMessage, /) -> None:
        """Write one message as one line."""
        if self._closed:
            raise anyio.ClosedResourceError
        if self._broken:
            raise anyio.BrokenResourceError
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        try:
            await self._stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            self._broken = True
            await self._on_broken()

    def close(self) -> None:
        """Refuse further messages (the process is shut down by the transport)."""
        self._closed = True

    async def aclose(self) -> None:
        """As :meth:`close`."""
        self._closed = True

    async def __aenter__(self) -> StdinWriter:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closed = True
