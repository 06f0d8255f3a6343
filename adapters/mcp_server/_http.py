"""Streamable HTTP transport: a Starlette app at ``/mcp`` and a uvicorn runner.

Secure by default: stateless (no session map to grow or to pin clients to a replica), bound
to 127.0.0.1 (another address without a token or callers logs a warning), ``Host``/``Origin`` checked against DNS rebinding, request bodies capped, and an
optional bearer token. ``/healthz`` answers without a token for load balancers and probes.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Awaitable, Callable, Sequence

import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from adapters.mcp_server._auth import BearerGuard, CallerGuard
from adapters.mcp_server._direct import DirectReplies
from adapters.mcp_server._events import BoundedEventStore, SessionScopedManager
from adapters.mcp_server._host import HostCheck
from adapters.mcp_server._json_replies import JsonRepliesFirst
from adapters.mcp_server._parse_guard import ParseGuard
from adapters.mcp_server._server import RegistryServer
from adapters.mcp_server._timeouts import DEFAULT_READ_TIMEOUT, timed_protocol

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_CONNECTIONS",
    "KEEP_ALIVE_S",
    "http_app",
    "serve_http",
    "uvicorn_config",
]

log = logging.getLogger("toolkit.server")

#: Default cap on a request body (1 MiB): far above any honest tool call.
DEFAULT_MAX_BODY_BYTES = 1024 * 1024

#: Default cap on open connections plus running requests; past it new ones get 503.
DEFAULT_MAX_CONNECTIONS = 4096
#: Seconds an idle kept-alive connection stays open.
KEEP_ALIVE_S = 5

_LOOPBACK_BINDS = frozenset({"127.0.0.1", "localhost", "::1"})
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_HEALTH_PATH = "/healthz"
_METRICS_PATH = "/metrics"
#: How long a client waits before reconnecting a lost stream (the SSE ``retry`` field).
_RETRY_MS = 1000


def http_app(
    server: RegistryServer,
    *,
    path: str = "/mcp",
    stateless: bool = True,
    token: str | None = None,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    json_response: bool | None = None,
    resumable: bool | None = None,
    metrics: ASGIApp | None = None,
) -> ASGIApp:
    """An ASGI app serving ``server`` over streamable HTTP at ``path``.

    Args:
        server: From :func:`build_server`; one app per server.
        path: Where the MCP endpoint lives.
        stateless: No ``Mcp-Session-Id``; every request stands alone (default). ``False``
            keeps sessions for handshake clients (idle sessions expire after 30 minutes).
        token: Require ``Authorization: Bearer <token>`` (see :func:`token_from_env`).
        host: The address the app will be bound to; loopback names are always allowed in
            ``Host``/``Origin``, any other bind address allows itself.
        allowed_hosts: More accepted ``Host`` values (``name`` or ``name:port``; ``name:*`` for
            any port). ``"*"`` turns the ``Host``/``Origin`` check off (behind a trusted proxy).
        allowed_origins: More accepted ``Origin`` values (``https://app.example.com``).
        max_body_bytes: Larger request bodies get 413.
        json_response: ``True`` answers every request with plain JSON (no progress
            notifications), ``False`` with an SSE stream. ``None`` (default): stateless, a
            request is answered as JSON unless it asks for progress or logs or opens a
            ``subscriptions/listen`` stream, which get SSE; with sessions, always SSE.
        resumable: Number SSE events and keep them a while (a bounded store), so a client that
            lost a stream resumes it with ``Last-Event-ID`` (SEP-1699). ``None`` (default): on
            with sessions, off when stateless (a resumed stream needs its session). Event ids
            are random and each session resumes only its own streams (:mod:`._events`).
        metrics: An app answering ``/metrics`` (a Prometheus scrape endpoint). It sits behind
            the same ``Host`` check and token (or callers) as the MCP endpoint.

    Returns:
        The ASGI application (run it with uvicorn or mount it in another Starlette app).
    """
    if token is None and server.callers is None and not _is_loopback(host):
        log.warning(
            "serving MCP on %s without a bearer token: any machine that reaches this address "
            "can call every tool. Set a token (--token-env / TOOLKIT_TOKEN_ENV) or a callers "
            "file (--callers / TOOLKIT_CALLERS), or bind to 127.0.0.1.",
            host,
        )
    server.legacy_list_changed = not stateless
    server.changes.track_http = not stateless
    security = _security(host, allowed_hosts, allowed_origins)
    keep_events = (not stateless) if resumable is None else resumable
    manager = SessionScopedManager(
        app=server,
        events=BoundedEventStore() if keep_events else None,
        retry_interval=_RETRY_MS if keep_events else None,
        json_response=bool(json_response),
        stateless=stateless,
        security_settings=security,
        max_request_body_size=max_body_bytes,
    )
    sse_app = Starlette(
        routes=[
            Route(path, endpoint=StreamableHTTPASGIApp(manager)),
            Route(_HEALTH_PATH, _health(server), methods=["GET"]),
        ],
        lifespan=lambda _: manager.run(),
    )
    app: ASGIApp = sse_app
    if stateless and json_response is None:
        json_manager = StreamableHTTPSessionManager(
            app=server,
            json_response=True,
            stateless=True,
            security_settings=security,
            max_request_body_size=max_body_bytes,
        )
        direct = DirectReplies(server, security)
        app = JsonRepliesFirst(sse_app, json_manager, path, max_body_bytes, direct)
    app = ParseGuard(app, path, max_body_bytes)
    if metrics is not None:
        app = _route(app, _METRICS_PATH, metrics)
    if token is not None:
        app = BearerGuard(app, token, open_paths=frozenset({_HEALTH_PATH}))
    if server.callers is not None:
        app = CallerGuard(app, server.callers, open_paths=frozenset({_HEALTH_PATH}))
    # The SDK's transport checks Host on the MCP path; the other paths are checked here.
    return HostCheck(app, security, open_paths=frozenset({_HEALTH_PATH, _METRICS_PATH}))


async def serve_http(
    server: RegistryServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    stateless: bool = True,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    log_level: str = "warning",
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> None:
    """Serve ``server`` with uvicorn at ``http://host:port/mcp`` until interrupted.

    Args are those of :func:`http_app` and :func:`uvicorn_config`; ``log_level`` is uvicorn's.
    """
    app = http_app(
        server,
        stateless=stateless,
        token=token,
        host=host,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        max_body_bytes=max_body_bytes,
    )
    config = uvicorn_config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        read_timeout=read_timeout,
        max_connections=max_connections,
    )
    await uvicorn.Server(config).serve()


def uvicorn_config(
    app: ASGIApp,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "warning",
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
) -> uvicorn.Config:
    """The uvicorn settings :func:`serve_http` uses: bounded reads and connections.

    Args:
        app: The ASGI app (from :func:`http_app`).
        host: Bind address.
        port: Bind port.
        log_level: uvicorn's log level.
        read_timeout: Seconds a client has to send a whole request (headers and body);
            slower or silent connections are closed.
        max_connections: Open connections plus running requests; past it new ones get 503.
    """
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        http=timed_protocol(read_timeout),
        limit_concurrency=max_connections,
        timeout_keep_alive=KEEP_ALIVE_S,
    )


def _security(
    host: str, allowed_hosts: Sequence[str], allowed_origins: Sequence[str]
) -> TransportSecuritySettings:
    if "*" in allowed_hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    names = list(_LOOPBACK_HOSTS)
    if host not in _LOOPBACK_BINDS and host not in ("0.0.0.0", "::"):
        names.append(f"[{host}]" if ":" in host else host)
    hosts = [pattern for name in names for pattern in (name, f"{name}:*")]
    origins = [
        f"{scheme}://{name}{port}"
        for name in names
        for scheme in ("http", "https")
        for port in ("", ":*")
    ]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h.lower() for h in (*hosts, *allowed_hosts)],
        allowed_origins=[o.lower() for o in (*origins, *allowed_origins)],
    )


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK_BINDS:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _route(app: ASGIApp, path: str, endpoint: ASGIApp) -> ASGIApp:
    """``app``, with ``endpoint`` answering HTTP requests for ``path``."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == path:
            await endpoint(scope, receive, send)
        else:
            await app(scope, receive, send)

    return route


def _health(server: RegistryServer) -> Callable[[Request], Awaitable[Response]]:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "server": server.name, "tools": len(server.registry)})

    return health
