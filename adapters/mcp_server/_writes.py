"""One socket write per response: what the server writes in one turn of the loop goes out together.

uvicorn writes a response's head as soon as the app starts it, then its body: two system calls
and two TCP segments for a JSON reply of a few hundred bytes, each of which also wakes the
client. The connection's writes are gathered here and handed to the socket once, when the
response is complete (:meth:`GatheredWrites.flush`) or at the end of the event loop's turn,
whichever comes first, so a head and the body sent right after it leave in one segment. Nothing
waits longer than that turn; a stream's events still leave as they are sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["GatheredWrites"]


class GatheredWrites:
    """A transport that forwards what is written in one loop turn as one write.

    Everything else (flow control, close, peer names, protocol switches) is the wrapped
    transport's; closing or aborting flushes or drops what is pending first.

    Args:
        transport: The connection's transport.
        loop: The loop serving it.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        # What uvicorn calls on every request or connection, bound once: reaching the wrapped
        # transport through ``__getattr__`` costs a failed lookup and a Python call each time.
        self.is_closing = transport.is_closing
        self.pause_reading = transport.pause_reading
        self.resume_reading = transport.resume_reading
        self.get_extra_info = transport.get_extra_info

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Queue ``data`` for this turn's write."""
        if not data:
            return
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(bytes(data))

    def writelines(self, chunks: Any) -> None:
        """Queue every chunk of ``chunks``."""
        for chunk in chunks:
            self.write(chunk)

    def close(self) -> None:
        """Send what is pending, then close."""
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        """Drop what is pending and close at once."""
        self._pending.clear()
        self._transport.abort()

    def write_eof(self) -> None:
        """Send what is pending, then half-close."""
        self._flush()
        self._transport.write_eof()

    def get_write_buffer_size(self) -> int:
        """Bytes not yet sent, pending ones included."""
        return self._transport.get_write_buffer_size() + sum(map(len, self._pending))

    def flush(self) -> None:
        """Hand what is pending to the transport now."""
        self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        if not self._transport.is_closing():
            self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
