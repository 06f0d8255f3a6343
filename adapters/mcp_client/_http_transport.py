"""The HTTP side of a remote MCP server: its pinned, bounded, logged client and transports.

Every request goes to an address the network policy judged (a pinned transport), no answer
may exceed the server's ``max_message_bytes`` or its reading deadline, the opt-in wire log
sees each exchange with secrets masked, and a caller's allowlisted headers ride on its own
``tools/call`` only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from adapters._net import pinned_transport
from adapters.mcp_client._bounded import BoundedTransport
from adapters.mcp_client._config import McpServerConfig, expand
from adapters.mcp_client._handlers import ClientHandlers, oauth_for
from adapters.mcp_client._sdk_private import TransportStreams
from adapters.network import NetworkPolicy, NetworkPolicyError
from toolkit.errors import ErrorCode, ToolError
from toolkit.records.wire_log import httpx_event_hooks

__all__ = ["call_headers", "remote_transport"]

#: Per-call HTTP headers (from the ToolContext allowlist). The SDK runs each POST in the
#: sending task's context, so the request hook sees the caller's value.
call_headers: ContextVar[Mapping[str, str] | None] = ContextVar("mcp_call_headers", default=None)


async def remote_transport(
    config: McpServerConfig,
    handlers: ClientHandlers | None,
    network: NetworkPolicy,
    on_auth: Callable[[int], None],
) -> AbstractAsyncContextManager[TransportStreams]:
    """The SSE or streamable HTTP transport of ``config``'s URL, once the policy allows it.

    Args:
        on_auth: Told each 401/403 status, so a failure can say the credentials were refused.

    Raises:
        ToolError: ``DENIED`` when the network policy refuses the URL.
    """
    url = expand(config.url or "")
    try:
        await network.check(url, server=config.name)
    except NetworkPolicyError as exc:
        raise ToolError(str(exc), code=ErrorCode.DENIED) from None
    if config.transport == "sse":

        def factory(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return _http_client(config, handlers, network, on_auth, timeout)

        return sse_client(url, headers=config.http_headers(), httpx_client_factory=factory)
    http = _http_client(config, handlers, network, on_auth, None)
    return _streamable(url, http, config.max_message_bytes)


def _http_client(
    config: McpServerConfig,
    handlers: ClientHandlers | None,
    network: NetworkPolicy,
    on_auth: Callable[[int], None],
    timeout: httpx2.Timeout | None,
) -> httpx2.AsyncClient:
    async def add_call_headers(request: httpx2.Request) -> None:
        request.headers.update(call_headers.get() or {})

    async def note_auth(response: httpx2.Response) -> None:
        if response.status_code in (401, 403):
            on_auth(response.status_code)

    return httpx2.AsyncClient(
        auth=oauth_for(config, handlers, network),
        headers=config.http_headers(),
        timeout=timeout or httpx2.Timeout(config.connect_timeout, read=300.0),
        event_hooks=_with_wire_log(
            {"request": [add_call_headers], "response": [note_auth]}, config.secrets()
        ),
        trust_env=False,
        transport=BoundedTransport(
            pinned_transport(network, server=config.name),
            config.max_message_bytes,
            _body_seconds(config),
        ),
    )


@asynccontextmanager
async def _streamable(
    url: str, http: httpx2.AsyncClient, limit: int
) -> AsyncIterator[TransportStreams]:
    # The client's transport caps whole answers; the SDK caps each event of a stream.
    async with (
        http,
        streamable_http_client(url, http_client=http, max_sse_event_size=limit) as streams,
    ):
        yield streams


def _body_seconds(config: McpServerConfig) -> float | None:
    """The total deadline of reading one answer: the longest any request may wait for it."""
    if config.call_timeout is None:
        return None
    return max(config.call_timeout, config.connect_timeout)


def _with_wire_log(hooks: dict[str, list[Any]], secrets: list[str]) -> dict[str, list[Any]]:
    """``hooks`` plus the opt-in wire debug log (``TOOLKIT_WIRE_LOG=1``), secrets masked."""
    wire = httpx_event_hooks(secrets)
    return {name: [*hooks.get(name, []), *wire.get(name, [])] for name in {*hooks, *wire}}
