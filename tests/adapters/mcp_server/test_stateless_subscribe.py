"""Over stateless HTTP no update can reach a handshake client (issue 33, item 10): the server
does not advertise ``resources/subscribe`` there, and refuses one in words that say why;
with sessions it still advertises and accepts it."""

from __future__ import annotations

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app
from tests.support import served_resources
from tests.support.serving import serving

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore:resources/subscribe")]


def _client(url: str) -> Client:
    http = httpx2.AsyncClient(timeout=20)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy")


async def test_stateless_http_neither_advertises_nor_accepts_subscriptions() -> None:
    server = build_server(served_resources.registry, name="shop")
    with serving(http_app(server)) as url:
        async with _client(url) as client:
            resources = client.server_capabilities.resources
            with pytest.raises(MCPError) as refused:
                await client.subscribe_resource("orders://7")
    assert resources is not None and not resources.subscribe
    assert "stateless HTTP" in str(refused.value)
    assert "no update could reach you" in str(refused.value)


async def test_with_sessions_subscriptions_are_advertised_and_accepted() -> None:
    server = build_server(served_resources.registry, name="shop")
    with serving(http_app(server, stateless=False)) as url:
        async with _client(url) as client:
            resources = client.server_capabilities.resources
            await client.subscribe_resource("orders://7")
    assert resources is not None and resources.subscribe
