"""Reading one HTTP response within a cap on decoded bytes: :func:`receive`.

Rule: every byte read from an HTTP endpoint (a tool's response, an OpenAPI document) is
bounded. The body is decoded here, not by httpx, in pieces of at most 64 KiB
(``adapters._decode``). Each piece counts against the cap as it arrives, so a compressed bomb
stops at the cap and memory never holds more than the cap plus one piece. Only the encodings
decoded so are asked for (:data:`ACCEPT_ENCODING`); a body in any other encoding is refused,
never passed on raw.
The time side of the rule (a total deadline per attempt) is the caller's cancel scope.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import httpx

from adapters._decode import (
    ACCEPT_ENCODING,
    CORRUPT,
    Decoder,
    UnreadableEncodingError,
    decoders_for,
    feed,
    finish,
)

__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "BodyTooLargeError",
    "Reply",
    "UnreadableEncodingError",
    "receive",
    "receive_sync",
]

#: The default cap on a response's decoded size.
DEFAULT_MAX_RESPONSE_BYTES = 10_000_000


class BodyTooLargeError(Exception):
    """The decoded body went past the cap.

    Attributes:
        limit: The cap, in bytes.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(f"the response is larger than {limit} bytes")
        self.limit = limit


@dataclass(slots=True)
class Reply:
    """A response read in full (within its cap): status, headers and the decoded body.

    Attributes:
        response: The response (its body already read here).
        content: The decoded body.
        content_type: The ``Content-Type`` header (``""`` when absent).
    """

    response: httpx.Response
    content: bytes
    content_type: str = ""

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
    decoders, kept, kind = _start(response, limit, truncate)
    try:
        async for raw in response.aiter_raw():
            if kept.add(feed(decoders, raw)):
                break
        else:
            kept.add(finish(decoders))
    except CORRUPT as exc:
        raise UnreadableEncodingError(f"the compressed body is corrupt ({exc})") from None
    return _reply(response, kept.parts, kind)


def receive_sync(response: httpx.Response, limit: int, *, truncate: bool = False) -> Reply:
    """:func:`receive` for a response of a blocking ``httpx.Client`` (the same rules).

    Raises:
        BodyTooLargeError: As :func:`receive`.
        UnreadableEncodingError: As :func:`receive`.
        httpx.HTTPError: As :func:`receive`.
    """
    decoders, kept, kind = _start(response, limit, truncate)
    try:
        for raw in response.iter_raw():
            if kept.add(feed(decoders, raw)):
                break
        else:
            kept.add(finish(decoders))
    except CORRUPT as exc:
        raise UnreadableEncodingError(f"the compressed body is corrupt ({exc})") from None
    return _reply(response, kept.parts, kind)


def _start(
    response: httpx.Response, limit: int, truncate: bool
) -> tuple[list[Decoder], _Kept, str]:
    """The decoders, the empty count and the content type; a declared size past the cap fails."""
    encoding, length, kind = _fields(response)
    decoders = decoders_for(encoding)
    if not decoders and not truncate and length.isdigit() and int(length) > limit:
        raise BodyTooLargeError(limit)
    return decoders, _Kept(limit, truncate), kind


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


def _reply(response: httpx.Response, parts: list[bytes], kind: str) -> Reply:
    return Reply(response, parts[0] if len(parts) == 1 else b"".join(parts), kind)


#: The headers :func:`receive` reads, by lower-cased name, and their place in its answer.
_FIELDS = {b"content-encoding": 0, b"content-length": 1, b"content-type": 2}


def _fields(response: httpx.Response) -> tuple[str, str, str]:
    """``Content-Encoding``, ``Content-Length`` and ``Content-Type`` in one pass over the
    headers (a repeated header's values joined by ``", "``, as ``Headers.get`` joins them)."""
    found: tuple[list[str], list[str], list[str]] = ([], [], [])
    for key, value in response.headers.raw:
        slot = _FIELDS.get(key.lower())
        if slot is not None:
            found[slot].append(value.decode("latin-1"))
    encoding, length, kind = found
    return ", ".join(encoding), ", ".join(length), ", ".join(kind)
