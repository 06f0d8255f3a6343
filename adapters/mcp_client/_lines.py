"""Split a byte stream into lines in linear time, with a cap on the size of one line.

Design rule: reading a line costs time proportional to its bytes (each byte is scanned once)
and memory bounded by the cap. A longer line is not kept: only its first and last bytes
survive, so the caller can still tell which request it answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio.abc

__all__ = ["DEFAULT_MAX_LINE", "Line", "read_lines"]

#: Default cap on one JSON-RPC message from a stdio server (64 MiB).
DEFAULT_MAX_LINE = 64 * 1024 * 1024

_KEEP = 512


class Line(bytes):
    """One line; ``oversized`` lines hold only their head and tail (``size`` is the real size)."""

    oversized: bool = False
    size: int = 0


def _line(data: bytes, size: int, oversized: bool) -> Line:
    line = Line(data)
    line.oversized, line.size = oversized, size
    return line


async def read_lines(stream: anyio.abc.ByteReceiveStream, max_line: int) -> AsyncIterator[Line]:
    """The lines of ``stream`` (without ``\\n``); blank lines are skipped."""
    buffer = bytearray()
    head = b""
    tail = b""
    dropped = 0  # >0 while discarding an oversized line: bytes seen so far
    async for chunk in stream:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            piece = chunk[start:end]
            start = end + 1
            if dropped:
                size = dropped + len(piece)
                tail = (tail + piece)[-_KEEP:]
                dropped = 0
                yield _line(head + b"\n" + tail, size, True)
                continue
            size = len(buffer) + len(piece)
            if size > max_line:
                whole = bytes(buffer) + piece
                buffer.clear()
                yield _line(whole[:_KEEP] + b"\n" + whole[-_KEEP:], size, True)
                continue
            if buffer:
                buffer += piece
                data = bytes(buffer)
                buffer.clear()
            else:
                data = piece
            if data.strip():
                yield _line(data, size, False)
        rest = chunk[start:]
        if dropped:
            dropped += len(rest)
            tail = (tail + rest)[-_KEEP:]
        else:
            buffer += rest
            if len(buffer) > max_line:
                head, tail = bytes(buffer[:_KEEP]), bytes(buffer[-_KEEP:])
                dropped = len(buffer)
                buffer.clear()
