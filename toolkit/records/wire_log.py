"""An opt-in debug view of the wire: one log line per request/response of a remote tool.

Off unless asked for (``TOOLKIT_WIRE_LOG=1`` or the ``toolkit.wire`` logger at DEBUG). Each
line says what was sent where, the status, how long it took and how big it was, with bodies
truncated and secrets masked (secret-named JSON keys, ``Authorization``-like headers, and the
values of known secrets).

Rule: a target URL is masked as call records are, by the default scrubber: credentials in its
query string (``api_key=``, ``access_token=``, ``token=``, ``key=``, ``secret=``,
``password=``, ``sig=``…) and a password in its user part never reach the log. A query value
masked in the URL is masked everywhere else on the line too (bodies that echo it included). HTTP endpoint tools and remote MCP servers call :func:`log_exchange`
or hand :func:`httpx_event_hooks` to their ``httpx`` client.

Example:
    >>> client = httpx.AsyncClient(event_hooks=httpx_event_hooks())  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import unquote_plus, urlsplit

from toolkit.calls._redact import MASK, is_secret_name, redact_arguments, redact_text, scrub_secrets

__all__ = [
    "WIRE_LOG_ENV",
    "httpx_event_hooks",
    "log_exchange",
    "redact_body",
    "redact_headers",
    "wire_log_enabled",
]

log = logging.getLogger("toolkit.wire")

#: Set to ``1`` to log every exchange at INFO (no logging configuration needed beyond a handler).
WIRE_LOG_ENV = "TOOLKIT_WIRE_LOG"

#: Characters of a body kept in a line.
DEFAULT_MAX_BODY = 1000

_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})


def wire_log_enabled() -> bool:
    """Whether exchanges are logged (the environment switch or a DEBUG ``toolkit.wire`` logger)."""
    if os.environ.get(WIRE_LOG_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        return True
    return log.isEnabledFor(logging.DEBUG)


def _level() -> int:
    return logging.INFO if os.environ.get(WIRE_LOG_ENV) else logging.DEBUG


def redact_body(
    body: bytes | str | None,
    secrets: Iterable[str] = (),
    limit: int = DEFAULT_MAX_BODY,
    *,
    cut: int | None = None,
) -> str:
    """``body`` as text: JSON with secret-named keys masked, known secrets masked, truncated.

    ``cut``: the whole body's size in bytes when ``body`` is only its first bytes; such a
    head cannot be parsed, so secrets in common shapes (``"token": "..."``) are masked.
    """
    if body is None:
        return ""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if cut is not None:
        text = redact_text(scrub_secrets(text), secrets)
        return f"{text[:limit]}… (of {cut} B)"
    with contextlib.suppress(ValueError):  # not JSON: only known secrets are masked
        text = json.dumps(redact_arguments(json.loads(text)), separators=(",", ":"))
    text = redact_text(text, secrets)
    if len(text) > limit:
        return f"{text[:limit]}… ({len(text) - limit} more chars)"
    return text


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers with credentials masked."""
    return {
        k: MASK if k.lower() in _SECRET_HEADERS or is_secret_name(k) else v
        for k, v in headers.items()
    }


def log_exchange(
    kind: str,
    method: str,
    target: str,
    *,
    status: int | str | None,
    duration_ms: float,
    request_body: bytes | str | None = None,
    response_body: bytes | str | None = None,
    request_size: int | None = None,
    response_size: int | None = None,
    secrets: Iterable[str] = (),
    limit: int = DEFAULT_MAX_BODY,
    response_cut: bool = False,
) -> None:
    """Log one exchange (a no-op unless :func:`wire_log_enabled`).

    Args:
        kind: ``"http"`` or ``"mcp"``.
        method: The HTTP method, or the MCP method (``tools/call``).
        target: The URL, or ``mcp://server/tool``.
        status: The HTTP status, or ``"ok"``/``"error"``/an error code.
        duration_ms: Time from sending to the complete answer.
        request_body: What was sent (truncated and redacted here).
        response_body: What came back.
        request_size: Bytes sent, when the body is not given.
        response_size: Bytes received, when the body is not given (a stream).
        secrets: Values to mask wherever they appear.
        limit: Characters of each body kept.
        response_cut: ``response_body`` is only the first bytes of ``response_size``.
    """
    if not wire_log_enabled():
        return
    # A secret in the URL's query is masked wherever it shows up on the line (a body that
    # echoes the request, an error quoting the key), not only in the URL.
    secrets = (*secrets, *_query_secrets(target))
    target = redact_text(scrub_secrets(target), secrets)
    sent = request_size if request_size is not None else _size(request_body)
    got = response_size if response_size is not None else _size(response_body)
    log.log(
        _level(),
        "%s %s %s -> %s in %.1f ms (sent %s B, got %s B) request=%s response=%s",
        kind,
        method,
        target,
        status,
        duration_ms,
        sent if sent is not None else "?",
        got if got is not None else "?",
        redact_body(request_body, secrets, limit),
        redact_body(response_body, secrets, limit, cut=got if response_cut else None),
        extra={
            "wire": {
                "kind": kind,
                "method": method,
                "target": target,
                "status": status,
                "duration_ms": duration_ms,
                "request_size": sent,
                "response_size": got,
            }
        },
    )


def _query_secrets(target: str) -> list[str]:
    """The values in ``target``'s query string that the scrubber masks there, as written and
    decoded (``?api_key=k%2B1`` gives ``k%2B1`` and ``k+1``)."""
    query = urlsplit(target).query if "?" in target else ""
    found: list[str] = []
    for pair in query.split("&"):
        _, eq, value = pair.partition("=")
        if eq and value and scrub_secrets(f"?{pair}") != f"?{pair}":
            found.extend({value, unquote_plus(value)})
    return found


def _size(body: bytes | str | None) -> int | None:
    if body is None:
        return None
    return len(body.encode() if isinstance(body, str) else body)


def httpx_event_hooks(
    secrets: Iterable[str] = (), limit: int = DEFAULT_MAX_BODY
) -> dict[str, list[Callable[[Any], Awaitable[None]]]]:
    """``event_hooks`` for an ``httpx.AsyncClient`` (or ``httpx2``) that log each exchange.

    Rule: the log never reads a body itself and never holds more of it than it shows. The
    response's stream is wrapped so that, as the caller reads it, the first bytes (about
    ``limit`` characters' worth) are kept and the rest only counted; the line is written when
    the caller has read the body to its end or closed it. A body the caller never reads is
    never read for the log, and every byte still reaches the caller in order. Streamed
    responses (``text/event-stream``) are logged at once, their size as unknown.
    """
    hidden = tuple(secrets)

    async def on_request(request: Any) -> None:
        request.extensions["toolkit_wire_t0"] = time.perf_counter()

    async def on_response(response: Any) -> None:
        if not wire_log_enabled():
            return
        request = response.request
        t0 = request.extensions.get("toolkit_wire_t0", time.perf_counter())

        def write(body: str | None, size: int | None, cut: bool = False) -> None:
            log_exchange(
                "http",
                request.method,
                str(request.url),
                status=response.status_code,
                duration_ms=(time.perf_counter() - t0) * 1000,
                request_body=_request_body(request),
                response_body=body,
                response_size=size,
                secrets=hidden,
                limit=limit,
                response_cut=cut,
            )

        if response.headers.get("content-type", "").startswith("text/event-stream"):
            length = response.headers.get("content-length")
            write(None, int(length) if length and length.isdigit() else None)
            return
        base = _stream_base(response.stream)
        if base is None:  # not a stream this module knows how to wrap: its body goes unseen
            write(None, None)
            return
        response.stream = _peeking(base, response.stream, limit * 4, response.headers, write)

    return {"request": [on_request], "response": [on_response]}


def _request_body(request: Any) -> bytes | None:
    try:
        content = request.content
    except Exception:  # a streamed request body that was not read: shown as unknown
        return None
    return bytes(content) if content else None


_PEEKING: dict[type, type] = {}


def _peeking(
    base: type,
    stream: Any,
    keep: int,
    headers: Mapping[str, str],
    write: Callable[[str | None, int, bool], None],
) -> Any:
    """``stream`` wrapped to keep its first ``keep`` bytes and call ``write`` at its end.

    The wrapper subclasses ``base``, the stream's own library's ``AsyncByteStream`` (httpx or
    httpx2), which the response checks for.
    """
    cls = _PEEKING.get(base)
    if cls is None:
        cls = _PEEKING[base] = type("_Peeking", (_PeekingMixin, base), {})
    return cls(stream, keep, headers.get("content-encoding", ""), write)


def _stream_base(stream: Any) -> type | None:
    for klass in type(stream).__mro__:
        if klass.__name__ == "AsyncByteStream":
            return klass
    return None


class _PeekingMixin:
    def __init__(
        self,
        inner: Any,
        keep: int,
        encoding: str,
        write: Callable[[str | None, int, bool], None],
    ) -> None:
        self._inner = inner
        self._keep = keep
        self._encoding = encoding.strip().lower()
        self._write = write
        self._head = bytearray()
        self._size = 0
        self._written = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._size += len(chunk)
            if len(self._head) < self._keep:
                self._head += chunk[: self._keep - len(self._head)]
            yield chunk
        self._done()

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            self._done()

    def _done(self) -> None:
        if self._written:
            return
        self._written = True
        cut = self._size > len(self._head) or self._encoding not in ("", "identity")
        self._write(_shown(bytes(self._head), self._encoding, self._keep), self._size, cut)


def _shown(head: bytes, encoding: str, keep: int) -> str:
    """The first bytes of a body as text; a gzip/deflate head is decoded (at most ``keep``)."""
    if encoding in ("", "identity"):
        return head.decode("utf-8", "replace")
    if encoding in ("gzip", "x-gzip", "deflate"):
        wbits = 16 + zlib.MAX_WBITS if encoding != "deflate" else zlib.MAX_WBITS
        with contextlib.suppress(zlib.error):
            return zlib.decompressobj(wbits).decompress(head, keep).decode("utf-8", "replace")
    return f"<{encoding}-encoded body>"
