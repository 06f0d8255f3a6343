"""Answer request bodies nested too deeply for JSON parsing with a JSON-RPC parse error.

Design rule: hostile input gets a protocol answer, never an HTTP 500 with a traceback. A body
nested deeper than :data:`MAX_DEPTH` (``[[[[...``) is answered ``400`` with the JSON-RPC
error ``-32700`` before any parser sees it.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

from adapters.mcp_server._body import read_body

__all__ = ["MAX_DEPTH", "ParseGuard", "too_deep"]

_REPLY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the JSON is nested too deeply"},
    }
).encode()


class ParseGuard:
    """ASGI middleware for ``path``: deep JSON gets a parse error, everything else passes.

    Args:
        app: The MCP application.
        path: The MCP endpoint.
        limit: Bodies larger than this pass unread (the app answers 413).
    """

    def __init__(self, app: ASGIApp, path: str, limit: int) -> None:
        self._app = app
        self._path = path
        self._limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self._path:
            await self._app(scope, receive, send)
            return
        body, complete, replay = await read_body(scope, receive, self._limit)
        if complete and too_deep(body):
            await _parse_error(send)
            return
        await self._app(scope, replay, send)


#: Deepest nesting accepted; far beyond any honest request, far below the parsers' limits.
MAX_DEPTH = 256


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether ``body`` nests arrays/objects deeper than ``limit`` (strings are skipped).

    Runs in linear time without recursion, so no parser ever reaches its recursion limit
    (a ``RecursionError`` deep in a C parser can leave the interpreter unstable).
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False  # cannot be deeper than the number of openers (the common, fast case)
    depth = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


async def _parse_error(send: Send) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(_REPLY))]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": _REPLY})
