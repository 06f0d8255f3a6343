"""Answer a stateless POST with one JSON body unless something must be streamed before it.

An SSE response costs the server a stream, its tasks and a keep-alive timer per request; a
JSON response is one body (server CPU per call drops by about a quarter). The streamable HTTP
spec lets the server pick per request, and a stateless request needs a stream only when
something is sent before its result: progress (the request carries a ``progressToken``), log
messages (a ``logLevel`` opt-in), or a ``subscriptions/listen`` stream. Those, and anything
that is not one plain JSON-RPC request, keep the SDK's SSE path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import LOG_LEVEL_META_KEY
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from adapters.mcp_server._body import read_body
from adapters.mcp_server._direct import DirectReplies

__all__ = ["JsonRepliesFirst"]

#: Requests that mention any of these (a listen stream, progress or log opt-ins) get SSE.
_STREAMING_KEYS = tuple(
    f'"{key}"'.encode() for key in ("subscriptions/listen", "progressToken", LOG_LEVEL_META_KEY)
)


class JsonRepliesFirst:
    """ASGI app: POSTs to ``path`` that need no stream go to a JSON-response session manager.

    Everything else, lifespan included, goes to ``app`` (the SDK's SSE app), whose lifespan
    also runs the JSON manager.

    Args:
        app: The Starlette app serving the stateless SSE session manager.
        json_manager: A stateless session manager with ``json_response=True`` for the same
            server and security settings.
        path: The MCP endpoint path.
        max_body_bytes: Bodies larger than this are not inspected (the SDK refuses them).
        direct: Answers what it can of the rest without the SDK's per-request session
            (:mod:`._direct`); what it declines goes to ``json_manager``.
    """

    def __init__(
        self,
        app: Starlette,
        json_manager: StreamableHTTPSessionManager,
        path: str,
        max_body_bytes: int,
        direct: DirectReplies | None = None,
    ) -> None:
        self._app: ASGIApp = app
        self._json = json_manager
        self._path = path
        self._limit = max_body_bytes
        self._direct = direct
        app.router.lifespan_context = _both(app.router.lifespan_context, json_manager, direct)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or _route(scope) != self._path:
            await self._app(scope, receive, send)
            return
        body, complete, replay = await read_body(scope, receive, self._limit)
        if complete and not _needs_stream(body):
            direct = self._direct
            if direct is None or not await direct.answer(scope, body, replay, send):
                await self._json.handle_request(scope, replay, send)
        else:
            await self._app(scope, replay, send)


def _needs_stream(body: bytes) -> bool:
    # A byte scan, not a parse (the SDK parses the body next): a request that mentions none of
    # the streaming keys anywhere cannot ask for a stream. A mention inside an argument value
    # only costs that request the SSE path, which serves everything.
    return body.lstrip()[:1] != b"{" or any(key in body for key in _STREAMING_KEYS)


def _route(scope: Scope) -> str:
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def _both(
    lifespan: Callable[[Any], AbstractAsyncContextManager[Any]],
    json_manager: StreamableHTTPSessionManager,
    direct: DirectReplies | None,
) -> Callable[[Any], AbstractAsyncContextManager[Any]]:
    @asynccontextmanager
    async def run(app: Any) -> AsyncIterator[Any]:
        async with lifespan(app) as state, json_manager.run():
            if direct is None:
                yield state
                return
            direct.running = True
            try:
                yield state
            finally:
                direct.running = False

    return run
