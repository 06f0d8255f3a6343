"""Answer a plain stateless JSON-RPC request of the handshake generation in the request's task.

For a stateless 2025-era POST the SDK builds a whole session per request: a transport, a task
group and its server task, four memory streams and a JSON-RPC dispatcher, only to run one
handler and tear it all down again; that costs about as much CPU as the call itself. What a
stateless JSON reply needs of it is the handler kernel, which the SDK's 2026-07-28 entry
already drives on its own (``serve_one``). Here a 2025-era request is driven the same way, with
the transport's checks and the dispatcher's error mapping kept:

* the transport's security check (``Host``, ``Origin``, ``Content-Type``) runs as in the SDK;
* only one well-formed JSON-RPC request other than ``initialize``, accepting JSON, is answered
  here; anything else (a notification, a batch, a bad header, a parse or validation error) is
  declined and the SDK's transport answers it exactly as before;
* the handler sees the same context: a born-ready connection at the request's version, the
  HTTP request on the message metadata, no back-channel (``NoBackChannelError``), and
  notifications dropped, as a JSON reply has no room for them;
* a handler's exception becomes the same JSON-RPC error as the dispatcher's.

Requests that need a stream (progress, logs, listen) never reach this module
(:mod:`._json_replies`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import Server
from mcp.server.runner import serve_one
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import DEFAULT_NEGOTIATED_VERSION, ErrorData, JSONRPCError, RequestId
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

__all__ = ["DirectReplies"]

log = logging.getLogger("toolkit.server")

_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower().encode("ascii")
_TRANSPORT = TransportContext(kind="streamable-http", can_send_request=False)
_JSON_HEADERS = (b"content-type", b"application/json")


@dataclass
class _Exchange:
    """The dispatch context of one request answered with one JSON body: no back-channel."""

    request_id: RequestId
    message_metadata: ServerMessageMetadata
    transport: TransportContext = _TRANSPORT
    can_send_request: bool = False
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(
        self, method: str, params: Mapping[str, Any] | None, opts: CallOptions | None = None
    ) -> None:
        return None  # a JSON reply carries the response only, as in the SDK's JSON mode

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        return None


class DirectReplies:
    """Answers plain stateless 2025-era requests with one JSON body, or declines them.

    Args:
        server: The server whose handlers answer.
        security: The transport's security settings (the same object the SDK checks).
    """

    def __init__(self, server: Server[Any], security: TransportSecuritySettings | None) -> None:
        self._server = server
        self._security = TransportSecurityMiddleware(security)
        #: Set while the app's lifespan runs (the server's own lifespan is running then).
        self.running = False

    async def answer(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> bool:
        """Answer the POST whose complete ``body`` is given; ``False``: declined, nothing sent."""
        version = _version(scope)
        if not self.running or (version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS):
            return False  # not started, or a 2026-07-28 request (the SDK's own direct entry)
        request = Request(scope, receive)
        if await self._security.validate_request(request, is_post=True) is not None:
            return False
        if not check_accept_headers(request)[0] or not _json_content(request):
            return False
        message = _plain_request(body)
        if message is None:
            return False
        request_id, method, params = message
        exchange = _Exchange(request_id, ServerMessageMetadata(request_context=request))
        connection = Connection.from_envelope(version or DEFAULT_NEGOTIATED_VERSION, None, None)
        try:
            result = await serve_one(
                self._server, exchange, method, params, connection=connection, lifespan_state=None
            )
        except Exception as exc:
            error = handler_exception_to_error_data(exc)
            if error is None:  # the dispatcher's catch-all, kept for the same wire answer
                log.exception("handler for %r raised", method)
                error = ErrorData(code=0, message=str(exc))
            reply = JSONRPCError(jsonrpc="2.0", id=request_id, error=error).model_dump_json(
                by_alias=True, exclude_unset=True
            )
            await _send_json(send, reply.encode())
            return True
        reply_bytes = pydantic_core.to_json({"jsonrpc": "2.0", "id": request_id, "result": result})
        await _send_json(send, reply_bytes)
        return True


def _version(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == _VERSION_HEADER:
            return str(value.decode("latin-1"))
    return None


def _json_content(request: Request) -> bool:
    content_type = request.headers.get("content-type", "")
    return any(part.strip() == "application/json" for part in content_type.split(";")[0].split(","))


def _plain_request(body: bytes) -> tuple[RequestId, str, dict[str, Any] | None] | None:
    """``(id, method, params)`` of a well-formed JSON-RPC request other than ``initialize``."""
    try:
        message = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.keys() - {"jsonrpc", "id", "method", "params"}:
        return None
    request_id, method, params = message.get("id"), message.get("method"), message.get("params")
    if (
        message.get("jsonrpc") != "2.0"
        or not isinstance(request_id, int | str)
        or isinstance(request_id, bool)
        or not isinstance(method, str)
        or method == "initialize"
        or not (params is None or isinstance(params, dict))
    ):
        return None
    return request_id, method, params


async def _send_json(send: Send, body: bytes) -> None:
    headers = [_JSON_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
