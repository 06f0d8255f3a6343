"""A cap on every answer a remote MCP server sends over HTTP: :class:`BoundedTransport`.

Rule: every byte read from a remote MCP server is bounded, like a stdio server's lines. The
transport under the connection's ``httpx2`` client decodes each body itself, in pieces of at
most 64 KiB (``adapters._decode``), and hands the client identity bytes, so the SDK's
``aread()`` of a JSON answer counts decoded bytes as they arrive: past the server's
``max_message_bytes`` (64 MiB by default) the read fails with :class:`AnswerTooLargeError`
and memory never holds more than the cap plus one piece. A compressed bomb stops at the cap.
An event stream (``text/event-stream``) is decoded the same way but not capped as a whole (a
listen stream lasts as long as the session); its cap is per event, the SDK's
``max_sse_event_size``, set to the same ``max_message_bytes`` by the connection.
The time side of the rule: the per-call timeout is a total deadline kept by the SDK's
request clock from the moment the request is written, so a server that drips its answer a
byte at a time does not extend a call. The body of an answer also has a total deadline here
(``body_seconds``: the longer of the connect and call timeouts), so the SDK's task that reads
it, which outlives a timed-out call, lets go of a dripping server too.

The error is an ``httpx2.StreamError``: the SDK turns it into a JSON-RPC error for the one
request it answered, so the call ends with a clear ``PROTOCOL_ERROR`` and the session (and
the next call) carries on.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import anyio
import httpx2
import mcp_types
from mcp.shared.exceptions import MCPError

from adapters._decode import (
    ACCEPT_ENCODING,
    CORRUPT,
    UnreadableEncodingError,
    decoders_for,
    feed,
    finish,
)
from toolkit.errors import ErrorCode, ToolError

__all__ = ["AUTH_MAX_BYTES", "AnswerTooLargeError", "BoundedTransport", "too_large"]

#: The cap on an answer of an OAuth endpoint the library calls itself (an identity provider's
#: token exchange): a token response is a few KB.
AUTH_MAX_BYTES = 1024 * 1024

_EVENT_STREAM = "text/event-stream"
_MARK = "larger than max_message_bytes"
_OVER = re.compile(rf"{_MARK} \((\d+) bytes\)")
#: httpx2's own words for an SSE event over ``max_event_size``.
_SSE_OVER = re.compile(r"event exceeded the (\d+) byte limit")


class AnswerTooLargeError(httpx2.StreamError):
    """A decoded answer went past the server's ``max_message_bytes``."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is {_MARK} ({limit} bytes)")
        self.limit = limit


class _AnswerTooSlowError(httpx2.StreamError):
    """The body of an answer did not end within its total deadline."""


class _UnreadableBodyError(httpx2.StreamError):
    """A body in an encoding that was not asked for, or a corrupt one."""


class BoundedTransport(httpx2.AsyncBaseTransport):
    """Wraps ``inner`` so that every response body is decoded here, within ``limit``.

    Args:
        inner: The transport that sends (the policy-pinned one).
        limit: The most decoded bytes of one answer (events: of one event, by the SDK).
        body_seconds: The total deadline of reading one answer's body (not an event
            stream's); ``None``: none beyond the client's read timeout.
    """

    def __init__(
        self, inner: httpx2.AsyncBaseTransport, limit: int, body_seconds: float | None = None
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._seconds = body_seconds

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``; the response's body is decoded (and capped) as it is read."""
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        response = await self._inner.handle_async_request(request)
        headers = response.headers
        encoding = headers.get("content-encoding", "")
        capped = not headers.get("content-type", "").lower().startswith(_EVENT_STREAM)
        if encoding:
            headers = httpx2.Headers(
                [
                    (k, v)
                    for k, v in headers.multi_items()
                    if k.lower() not in ("content-encoding", "content-length")
                ]
            )
        length = response.headers.get("content-length", "")
        declared = int(length) if not encoding and length.isdigit() else None
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        stream = _Decoded(
            response.stream,
            encoding,
            self._limit if capped else None,
            declared=declared,
            seconds=self._seconds if capped else None,
        )
        return httpx2.Response(
            response.status_code,
            headers=headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        """Close the inner transport (its connection pool)."""
        await self._inner.aclose()


class _Decoded(httpx2.AsyncByteStream):
    """The decoded body of one response, counted against ``limit`` (``None``: per event)."""

    def __init__(
        self,
        raw: httpx2.AsyncByteStream,
        encoding: str,
        limit: int | None,
        *,
        declared: int | None,
        seconds: float | None,
    ) -> None:
        self._raw = raw
        self._encoding = encoding
        self._limit = limit
        self._declared = declared
        self._seconds = seconds

    async def __aiter__(self) -> AsyncIterator[bytes]:
        limit = self._limit
        if limit is not None and self._declared is not None and self._declared > limit:
            raise AnswerTooLargeError(limit)
        try:
            decoders = decoders_for(self._encoding)
        except UnreadableEncodingError as exc:
            raise _UnreadableBodyError(str(exc)) from None
        size = 0
        try:
            async for raw in self._chunks():
                for piece in feed(decoders, raw):
                    size += len(piece)
                    if limit is not None and size > limit:
                        raise AnswerTooLargeError(limit)
                    yield piece
            for piece in finish(decoders):
                size += len(piece)
                if limit is not None and size > limit:
                    raise AnswerTooLargeError(limit)
                yield piece
        except CORRUPT as exc:
            raise _UnreadableBodyError(f"the compressed body is corrupt ({exc})") from None

    async def _chunks(self) -> AsyncIterator[bytes]:
        """The raw chunks, all of them within the total deadline (when there is one)."""
        if self._seconds is None:
            async for raw in self._raw:
                yield raw
            return
        end = anyio.current_time() + self._seconds
        chunks = aiter(self._raw)
        while True:
            # One scope per read: a scope cannot stay open across this generator's yields.
            with anyio.move_on_after(end - anyio.current_time()) as scope:
                try:
                    raw = await anext(chunks)
                except StopAsyncIteration:
                    return
            if scope.cancelled_caught:
                raise _AnswerTooSlowError(
                    f"the answer did not end within {self._seconds:g} s (its total deadline)"
                )
            yield raw

    async def aclose(self) -> None:
        await self._raw.aclose()


def too_large(exc: BaseException, server: str) -> ToolError | None:
    """The clear error for a call whose answer (or event) went past ``max_message_bytes``.

    The SDK reports both as a JSON-RPC error of the request they answered; ``None`` for any
    other failure.
    """
    if not isinstance(exc, MCPError):
        return None
    if _MARK in exc.message:
        match = _OVER.search(exc.message)
    elif exc.code == mcp_types.CONNECTION_CLOSED:
        match = _SSE_OVER.search(exc.message)
    else:
        return None
    if match is None:
        return None
    limit = match.group(1)
    return ToolError(
        f"MCP server {server!r} sent an answer larger than {limit} bytes, the limit its "
        "config sets in 'max_message_bytes'; the call was stopped there. Ask for less (a "
        "filter, a smaller page), or raise 'max_message_bytes' in the server's config.",
        code=ErrorCode.PROTOCOL_ERROR,
    )
