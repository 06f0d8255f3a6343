"""Read a request body once for every layer of the HTTP app that needs to look at it.

The parse guard and the JSON-reply router both decide on the body before the SDK reads it. The
first layer buffers it (up to the size limit) and leaves it in the ASGI scope; the layers after
it take it from there, and every layer hands on a ``receive`` that replays what was read.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope

__all__ = ["read_body"]

#: The ASGI scope key holding ``(body, complete)`` once a layer has read the body.
_KEY = "mcp_toolkit.body"


async def read_body(scope: Scope, receive: Receive, limit: int) -> tuple[bytes, bool, Receive]:
    """``(body, complete, receive)``: the buffered body and a ``receive`` that replays it.

    ``complete`` is false when the body is larger than ``limit`` or the client went away; the
    body is then empty, and what was read is still replayed for the app to answer (413).
    """
    known: tuple[bytes, bool] | None = scope.get(_KEY)
    if known is not None:
        return known[0], known[1], receive  # ``receive`` already replays it
    messages: list[Message] = []
    chunks: list[bytes] = []
    size, complete = 0, False
    while size <= limit:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            complete = size <= limit
            break
    body = b"".join(chunks) if complete else b""
    scope[_KEY] = (body, complete)
    pending = messages

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return body, complete, replay
