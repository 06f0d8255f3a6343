"""Decoding a compressed HTTP body in bounded pieces, for every client of the library.

Rule: a compressed body never expands in one step. gzip and deflate are decoded through
zlib's ``max_length``, br through brotli's ``output_buffer_limit``, so each step yields at
most :data:`PIECE` bytes and a reader that counts the pieces against its cap stops a
compressed bomb at the cap. Only the encodings decoded so are asked for
(:data:`ACCEPT_ENCODING`); a body in any other encoding is refused, never passed on raw.
Used by HTTP endpoint tools (``adapters.http``) and remote MCP servers
(``adapters.mcp_client``).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any, Protocol

__all__ = [
    "ACCEPT_ENCODING",
    "CORRUPT",
    "MAX_ENCODINGS",
    "PIECE",
    "Decoder",
    "UnreadableEncodingError",
    "decoders_for",
    "feed",
    "finish",
]

#: The most one decoding step may produce.
PIECE = 64 * 1024
#: Content encodings stacked on one body (``gzip, gzip, ...`` would cost a decoder each).
MAX_ENCODINGS = 3

try:  # brotli >= 1.2 has the output limit that keeps a br bomb bounded
    import brotli

    brotli.Decompressor().process(b"", output_buffer_limit=PIECE)
    _BROTLI = True
except (ImportError, TypeError):  # pragma: no cover - depends on the installed extras
    _BROTLI = False

#: What a request asks for: only the encodings decoded within the cap.
ACCEPT_ENCODING = "gzip, deflate, br" if _BROTLI else "gzip, deflate"


class UnreadableEncodingError(Exception):
    """The body came in a content encoding that was not asked for (or is broken)."""


class Decoder(Protocol):
    """One content encoding, undone in pieces of at most :data:`PIECE` bytes."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data``."""
        ...

    def end(self) -> Iterator[bytes]:
        """What is left once the body has ended."""
        ...


class _Zlib:
    """gzip (``wbits=31``), or deflate (zlib-wrapped or raw, told apart by its first bytes)."""

    def __init__(self, gzip: bool) -> None:
        self._d: Any = zlib.decompressobj(16 + zlib.MAX_WBITS) if gzip else None
        self._head = b""

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._d is None:
            self._head += data
            if len(self._head) < 2:
                return
            first, second = self._head[0], self._head[1]
            wrapped = first & 0x0F == 8 and (first << 8 | second) % 31 == 0
            self._d = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
            data, self._head = self._head, b""
        while True:
            out = self._d.decompress(data, PIECE)
            if out:
                yield out
            data = self._d.unconsumed_tail
            if not data and len(out) < PIECE:
                return

    def end(self) -> Iterator[bytes]:
        if self._d is None and self._head:
            raise zlib.error("deflate body shorter than its header")
        if self._d is not None:
            yield from self.feed(b"")


class _Brotli:
    def __init__(self) -> None:
        self._d = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        out = self._d.process(data, output_buffer_limit=PIECE)
        if out:
            yield out
        while not self._d.can_accept_more_data():
            out = self._d.process(b"", output_buffer_limit=PIECE)
            if not out:
                return
            yield out

    def end(self) -> Iterator[bytes]:
        return iter(())


if _BROTLI:
    _BrotliError: type[Exception] = brotli.error
else:  # pragma: no cover - depends on the installed extras

    class _BrotliError(Exception):  # type: ignore[no-redef]
        pass


#: What a decoder raises on a corrupt body.
CORRUPT: tuple[type[Exception], ...] = (zlib.error, _BrotliError)


def decoders_for(header: str) -> list[Decoder]:
    """Decoders for a ``Content-Encoding`` header, in the order they apply.

    Raises:
        UnreadableEncodingError: An encoding that was not asked for, or too many of them.
    """
    if not header:
        return []
    names = [n.strip().lower() for n in header.split(",")]
    names = [n for n in names if n and n != "identity"]
    if len(names) > MAX_ENCODINGS:
        raise UnreadableEncodingError(
            f"the body is encoded {len(names)} times over ({header!r}); at most "
            f"{MAX_ENCODINGS} encodings are read"
        )
    decoders: list[Decoder] = []
    for name in reversed(names):
        if name in ("gzip", "x-gzip"):
            decoders.append(_Zlib(gzip=True))
        elif name == "deflate":
            decoders.append(_Zlib(gzip=False))
        elif name == "br" and _BROTLI:
            decoders.append(_Brotli())
        else:
            raise UnreadableEncodingError(
                f"the body is encoded as {name!r}, which was not asked for "
                f"(Accept-Encoding: {ACCEPT_ENCODING})"
            )
    return decoders


def feed(decoders: list[Decoder], data: bytes) -> Iterator[bytes]:
    """The decoded pieces of ``data`` through every decoder (``data`` itself when none)."""
    if not decoders:
        yield data
        return
    head, rest = decoders[0], decoders[1:]
    for piece in head.feed(data):
        if rest:
            yield from feed(rest, piece)
        else:
            yield piece


def finish(decoders: list[Decoder]) -> Iterator[bytes]:
    """What the decoders still hold once the body has ended."""
    for index, decoder in enumerate(decoders):
        rest = decoders[index + 1 :]
        for piece in decoder.end():
            if rest:
                yield from feed(rest, piece)
            else:
                yield piece
