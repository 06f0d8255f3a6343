"""Answer a plain stateless JSON-RPC request in the request's own task, through the SDK's kernel.

For a stateless 2025-era POST the SDK builds a whole session per request: a transport, a task
group and its server task, four memory streams and a JSON-RPC dispatcher, only to run one
handler and tear it all down again; that costs about as much CPU as the call itself. What a
stateless JSON reply needs of it is the handler kernel, which the SDK's 2026-07-28 entry
already drives on its own (``serve_one``). Here both generations are driven that way, and a
2026-07-28 request also skips the request and response models that entry builds around it:

* the transport's security check (``Host``, ``Origin``, ``Content-Type``) runs as in the SDK,
  and a 2026-07-28 request climbs the SDK's own ladder (duplicated routing headers, the
  ``_meta`` envelope against the headers, ``Mcp-Param-*`` against the tool's schema);
* only one well-formed JSON-RPC request other than ``initialize``, accepting JSON, is answered
  here; anything else (a notification, a batch, a bad header, a parse error, a rejection by
  any rung) is declined, and the SDK answers it exactly as before;
* the handler sees the same context: a connection at the request's version, the HTTP request
  on the message metadata, no back-channel (``NoBackChannelError``), and notifications
  dropped, as a JSON reply has no room for them;
* a handler's exception becomes the same JSON-RPC error (and HTTP status) as the SDK's.

Requests that need a stream (progress, logs, listen) never reach this module
(:mod:`._json_replies`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import pydantic_core
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import Server
from mcp.server.runner import aclose_shielded, modern_error_data
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.dispatcher import CallOptions
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    MCP_PARAM_HEADER_PREFIX,
    MCP_PROTOCOL_VERSION_HEADER,
    X_MCP_HEADER_KEY,
    InboundModernRoute,
    classify_inbound_request,
    validate_mcp_param_headers,
)
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import DEFAULT_NEGOTIATED_VERSION, ErrorData, JSONRPCError, RequestId
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from adapters.mcp_server._chain import ChainRunner, needed
from adapters.mcp_server._envelopes import EnvelopeConnections, has_cleanup
from adapters.mcp_server._transport_checks import HeaderView, TransportChecks

__all__ = ["DirectReplies"]

log = logging.getLogger("toolkit.server")

_VERSION_HEADER = MCP_PROTOCOL_VERSION_HEADER.lower()
_TRANSPORT = TransportContext(kind="streamable-http", can_send_request=False)
_JSON_HEADERS = (b"content-type", b"application/json")
_PARAM_PREFIX = MCP_PARAM_HEADER_PREFIX.lower()
#: Tool schemas whose ``x-mcp-header`` answer is remembered (forgotten all at once past it).
_MAX_SCHEMAS = 4096


@dataclass
class _Exchange:
    """The dispatch context of one request answered with one JSON body: no back-channel."""

    request_id: RequestId
    message_metadata: ServerMessageMetadata
    transport: TransportContext = _TRANSPORT
    can_send_request: bool = False
    _cancel: anyio.Event | None = field(default=None, init=False)

    @property
    def cancel_requested(self) -> anyio.Event:
        """Never set (no ``notifications/cancelled`` reaches a single exchange); made on demand."""
        if self._cancel is None:
            self._cancel = anyio.Event()
        return self._cancel

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
    """Answers plain stateless requests of either generation with one JSON body, or declines.

    Args:
        server: The server whose handlers answer.
        security: The transport's security settings (the same object the SDK checks).
    """

    def __init__(self, server: Server[Any], security: TransportSecuritySettings | None) -> None:
        self._server = server
        self._checks = TransportChecks(TransportSecurityMiddleware(security))
        self._declared: dict[int, tuple[Mapping[str, Any], bool]] = {}
        self._connections = EnvelopeConnections()
        #: Set while the app's lifespan runs (the server's own lifespan is running then).
        self.running = False

    async def answer(self, scope: Scope, body: bytes, receive: Receive, send: Send) -> bool:
        """Answer the POST whose complete ``body`` is given; ``False``: declined, nothing sent."""
        if not self.running:
            return False
        headers = HeaderView(scope["headers"])
        if not await self._checks.passed(headers):
            return False
        version = headers.get(_VERSION_HEADER)
        modern = version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
        request = Request(scope, receive)
        if modern:
            return await self._modern(request, headers, body, send)
        message = _plain_request(pydantic_core.from_json, body)
        if message is None:
            return False
        request_id, method, params = message
        exchange = _Exchange(request_id, ServerMessageMetadata(request_context=request))
        connection = Connection.from_envelope(version or DEFAULT_NEGOTIATED_VERSION, None, None)
        try:
            result = await self._serve(exchange, method, params, connection)
        except Exception as exc:
            error = handler_exception_to_error_data(exc)
            if error is None:  # the dispatcher's catch-all, kept for the same wire answer
                log.exception("handler for %r raised", method)
                error = ErrorData(code=0, message=str(exc))
            reply = JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
            await _send_json(
                send, reply.model_dump_json(by_alias=True, exclude_unset=True).encode()
            )
            return True
        await _send_json(send, _result(request_id, result))
        return True

    async def _serve(
        self,
        exchange: _Exchange,
        method: str,
        params: dict[str, Any] | None,
        connection: Connection,
    ) -> dict[str, Any]:
        """The SDK's ``serve_one``, whose shielded teardown of the connection's exit stack runs
        only when something was pushed onto it, without the middleware that would only hand
        this request on (:mod:`._chain`)."""
        chain = needed(self._server.middleware, method, connection.protocol_version, params)
        runner = ChainRunner(self._server, connection, None, chain=chain)
        try:
            return await runner.on_request(exchange, method, params)
        finally:
            if has_cleanup(connection):
                await aclose_shielded(connection)

    async def _modern(self, request: Request, headers: HeaderView, body: bytes, send: Send) -> bool:
        """A 2026-07-28 request, through the SDK's own ladder of checks (``handle_modern_request``
        without its request and response models); a rejection of any rung is the SDK's to send."""
        message = _plain_request(json.loads, body)
        if message is None or headers.duplicated:
            return False
        request_id, method, params = message
        body_fields = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        verdict = classify_inbound_request(body_fields, headers=headers)
        if not isinstance(verdict, InboundModernRoute) or not self._params_fit(
            request, headers, method, params
        ):
            return False
        exchange = _Exchange(
            request_id,
            ServerMessageMetadata(request_context=request),
            transport=TransportContext(
                kind="streamable-http", can_send_request=False, headers=request.headers
            ),
        )
        connection = self._connections.of(
            verdict.protocol_version, verdict.client_info, verdict.client_capabilities
        )
        try:
            result = await self._serve(exchange, method, params, connection)
        except Exception as exc:
            error = modern_error_data(exc)
            reply = JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
            status = ERROR_CODE_HTTP_STATUS.get(error.code, 200)
            wire = reply.model_dump(mode="json", by_alias=True, exclude_none=True)
            await _send_json(send, json.dumps(wire, separators=(",", ":")).encode(), status)
            return True
        await _send_json(send, _result(request_id, result))
        return True

    def _params_fit(
        self, request: Request, headers: HeaderView, method: str, params: dict[str, Any] | None
    ) -> bool:
        """Whether a ``tools/call``'s ``Mcp-Param-*`` headers agree with its arguments."""
        if method != "tools/call":
            return True
        params = params or {}
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not isinstance(arguments, Mapping | None):
            return True  # the SDK skips the check too; the handler refuses such params
        if not arguments and not any(h.startswith(_PARAM_PREFIX) for h in headers):
            return True
        lookup = self._server.get_tool_input_schema
        if lookup is None:
            return False  # the SDK reads the schema from the caller's own listing
        try:
            schema = lookup(name)
        except Exception:
            return False
        if schema is None or not self._declares_headers(schema):
            return True  # no property is mirrored into a header: nothing can disagree
        return validate_mcp_param_headers(schema, arguments or {}, request.headers) is None

    def _declares_headers(self, schema: Mapping[str, Any]) -> bool:
        """Whether ``schema`` may mark a property ``x-mcp-header`` (remembered per schema)."""
        known = self._declared.get(id(schema))
        if known is not None and known[0] is schema:
            return known[1]
        if len(self._declared) >= _MAX_SCHEMAS:
            self._declared.clear()
        declares = X_MCP_HEADER_KEY in json.dumps(schema, default=str)
        self._declared[id(schema)] = (schema, declares)
        return declares


def _plain_request(
    parse: Callable[[bytes], Any], body: bytes
) -> tuple[RequestId, str, dict[str, Any] | None] | None:
    """``(id, method, params)`` of a well-formed JSON-RPC request other than ``initialize``
    (parsed with the parser the SDK uses for that generation)."""
    try:
        message = parse(body)
    except (ValueError, RecursionError):
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


def _result(request_id: RequestId, result: dict[str, Any]) -> bytes:
    # What the SDK's response model writes for a dict result, without building the model.
    return pydantic_core.to_json({"jsonrpc": "2.0", "id": request_id, "result": result})


async def _send_json(send: Send, body: bytes, status: int = 200) -> None:
    headers = [_JSON_HEADERS, (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
