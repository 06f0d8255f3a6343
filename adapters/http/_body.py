"""Reading one HTTP response within a cap on decoded bytes: :func:`receive`.

Rule: every byte read from an HTTP endpoint (a tool's response, an OpenAPI document) is
bounded. The body is decoded here, not by httpx, in pieces of at most 64 KiB: gzip and
deflate through zlib's ``max_length``, br through brotli's ``output_buffer_limit``. Each piece
counts against the cap as it arrives, so a compressed bomb stops at the cap and memory never
holds more than the cap plus one piece. Only the encodings decoded so are asked for
(:data:`ACCEPT_ENCODING`); a body in any other encoding is refused, never passed on raw.
The time side of the rule (a total deadline per attempt) is the caller's cancel scope.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "BodyTooLargeError",
    "Reply",
    "UnreadableEncodingError",
    "receive",
]

#: The default cap on a response's decoded size.
DEFAULT_MAX_RESPONSE_BYTES = 10_000_000
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


class BodyTooLargeError(Exception):
    """The decoded body went past the cap.

    Attributes:
        limit: The cap, in bytes.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(f"the response is larger than {limit} bytes")
        self.limit = limit


class UnreadableEncodingError(Exception):
    """The body came in a content encoding that was not asked for (or is broken)."""


@dataclass(slots=True)
class Reply:
    """A response read in full (within its cap): status, headers and the decoded body."""

    response: httpx.Response
    content: bytes

    @property
    def status_code(self) -> int:
        """The HTTP status."""
        return self.response.status_code

    @property
    def reason_phrase(self) -> str:
        """The status's words (``Not Found``)."""
        return self.response.reason_phrase

    @property
    def headers(self) -> httpx.Headers:
        """The response headers."""
        return self.response.headers

    @property
    def text(self) -> str:
        """The body as text (the declared charset, else UTF-8; bad bytes replaced)."""
        charset = self.response.charset_encoding or "utf-8"
        try:
            return self.content.decode(charset, errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body parsed as JSON.

        Raises:
            ValueError: It is not JSON.
        """
        return json.loads(self.content)


async def receive(response: httpx.Response, limit: int, *, truncate: bool = False) -> Reply:
    """Read ``response``'s body, decoded, within ``limit`` bytes (the caller closes it).

    Args:
        response: A response opened with ``stream=True``.
        limit: The most decoded bytes to hold.
        truncate: Keep the first ``limit`` bytes instead of failing (error bodies).

    Raises:
        BodyTooLargeError: The decoded body is longer than ``limit`` (and not ``truncate``).
        UnreadableEncodingError: An encoding that was not asked for, or a corrupt body.
        httpx.HTTPError: The connection failed while reading.
    """
    decoders = _decoders(response.headers.get("content-encoding", ""))
    if not decoders and not truncate:
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise BodyTooLargeError(limit)
    kept = _Kept(limit, truncate)
    try:
        async for raw in response.aiter_raw():
            if kept.add(_through(decoders, raw) if decoders else (raw,)):
                break
        else:
            kept.add(_finish(decoders))
    except (zlib.error, _BrotliError) as exc:
        raise UnreadableEncodingError(f"the compressed body is corrupt ({exc})") from None
    return _reply(response, kept.parts)


class _Kept:
    """The pieces held so far, counted against the cap."""

    __slots__ = ("limit", "parts", "size", "truncate")

    def __init__(self, limit: int, truncate: bool) -> None:
        self.limit = limit
        self.truncate = truncate
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, pieces: Iterable[bytes]) -> bool:
        """Keep ``pieces``; True once a truncated body is full.

        Raises:
            BodyTooLargeError: Past the cap (and not truncating).
        """
        for piece in pieces:
            self.size += len(piece)
            if self.size > self.limit:
                if not self.truncate:
                    raise BodyTooLargeError(self.limit)
                self.parts.append(piece[: len(piece) - (self.size - self.limit)])
                return True
            self.parts.append(piece)
        return False


def _reply(response: httpx.Response, parts: list[bytes]) -> Reply:
    return Reply(response, parts[0] if len(parts) == 1 else b"".join(parts))


class _Decoder(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]: ...

    def end(self) -> Iterator[bytes]: ...


class _Zlib:
    """gzip (``wbits=31``), or deflate (zlib-wrapped or raw, told apart by its first bytes)."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
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


def _decoders(header: str) -> list[_Decoder]:
    """Decoders in the order they apply (the reverse of the header's order)."""
    if not header:
        return []
    names = [n.strip().lower() for n in header.split(",")]
    names = [n for n in names if n and n != "identity"]
    if len(names) > MAX_ENCODINGS:
        raise UnreadableEncodingError(
            f"the body is encoded {len(names)} times over ({header!r}); at most "
            f"{MAX_ENCODINGS} encodings are read"
        )
    decoders: list[_Decoder] = []
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


def _through(decoders: list[_Decoder], data: bytes) -> Iterator[bytes]:
    head, rest = decoders[0], decoders[1:]
    for piece in head.feed(data):
        if rest:
            yield from _through(rest, piece)
        else:
            yield piece


def _finish(decoders: list[_Decoder]) -> Iterator[bytes]:
    for index, decoder in enumerate(decoders):
        rest = decoders[index + 1 :]
        for piece in decoder.end():
            if rest:
                yield from _through(rest, piece)
            else:
                yield piece
