"""Answer request bodies nested too deeply for JSON parsing with a JSON-RPC parse error.

Design rule: hostile input gets a protocol answer, never an HTTP 500 with a traceback. A body
whose nesting exhausts the parser's recursion (``[[[[...``) is answered ``400`` with the
JSON-RPC error ``-32700`` before it reaches the MCP transport.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ParseGuard"]

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
        messages: list[Message] = []
        chunks: list[bytes] = []
        size, complete = 0, False
        while size <= self._limit:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            if not message.get("more_body", False):
                complete = size <= self._limit
                break
        if complete and _too_deep(b"".join(chunks)):
            await _parse_error(send)
            return
        pending = list(messages)

        async def replay() -> Message:
            return pending.pop(0) if pending else await receive()

        await self._app(scope, replay, send)


def _too_deep(body: bytes) -> bool:
    try:
        json.loads(body)
    except RecursionError:
        return True
    except ValueError:
        return False  # the transport answers malformed JSON itself
    return False


async def _parse_error(send: Send) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(_REPLY))]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": _REPLY})
