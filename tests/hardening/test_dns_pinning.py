"""Every outbound connection goes to an address the policy judged, never to a name looked up again.

Two loopback services listen on the same port: one on 127.0.0.1, where the system resolves
``localhost``, and one on 127.0.0.2. The policy's resolver is a table: when it says
``localhost`` is 127.0.0.2, a request that arrives at 127.0.0.1 was connected by name, past
the policy. When the table says nothing (the policy cannot resolve), no request may arrive at
all. Each service counts what reached it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from adapters.http import HttpConfigError, HttpToolset
from adapters.mcp_client import McpClientPool, headless_flow
from adapters.mcp_client._service_auth import fetch_id_jag
from adapters.network import HostNotFoundError, NetworkPolicy, NetworkPolicyError
from tests.support.serving import serving
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode, ToolError

HITS: Counter[str] = Counter()


@dataclass(frozen=True, slots=True)
class TablePolicy(NetworkPolicy):
    """A policy whose own lookups answer from a table (what its DNS says)."""

    table: tuple[tuple[str, str], ...] = ()

    async def _addresses(self, host: str) -> list[Any]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            return [ipaddress.ip_address(a) for h, a in self.table if h == host]


JUDGED = TablePolicy(table=(("localhost", "127.0.0.2"),))
BLIND = TablePolicy()  # resolves no name


def app(me: str) -> Starlette:
    async def hit(request: Request) -> Response:
        HITS[me] += 1
        return JSONResponse({"served_by": me})

    async def document(request: Request) -> Response:
        HITS[me] += 1
        op = {"operationId": f"served_by_{me.replace('.', '_')}", "responses": {}}
        return JSONResponse({"openapi": "3.1.0", "paths": {"/hit": {"get": op}}})

    async def token(request: Request) -> Response:
        HITS[me] += 1
        return JSONResponse({"access_token": f"token-from-{me}", "token_type": "N_A"})

    async def authorize(request: Request) -> Response:
        HITS[me] += 1
        return RedirectResponse(f"http://127.0.0.1:1/callback?code=code-from-{me}", 302)

    return Starlette(
        routes=[
            Route("/hit", hit),
            Route("/openapi.json", document),
            Route("/token", token, methods=["POST"]),
            Route("/authorize", authorize),
            Route("/mcp", hit, methods=["GET", "POST", "DELETE"]),
        ]
    )


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = int(probe.getsockname()[1])
    with ExitStack() as stack:
        for host in ("127.0.0.1", "127.0.0.2"):
            stack.enter_context(serving(app(host), host=host, port=free))
        yield free


@pytest.fixture(autouse=True)
def _fresh_counts() -> None:
    HITS.clear()


def test_the_policy_resolves_from_its_table_and_the_system_from_hosts() -> None:
    # The premise of every test below: the two lookups disagree.
    assert anyio.run(JUDGED.addresses, "localhost") == ["127.0.0.2"]
    assert socket.gethostbyname("localhost") == "127.0.0.1"


def test_a_name_the_policy_cannot_resolve_is_never_connected_to() -> None:
    with pytest.raises(HostNotFoundError, match="does not resolve"):
        anyio.run(BLIND.addresses, "localhost")


def test_a_policy_that_resolves_nothing_judges_no_name() -> None:
    strict = NetworkPolicy(allow_loopback=False, resolve=False)
    with pytest.raises(NetworkPolicyError, match="does not resolve names"):
        anyio.run(strict.addresses, "service.test")
    # Allowing every kind of address anyway, a trusted config may still connect by name.
    assert anyio.run(NetworkPolicy(resolve=False).addresses, "service.test") == []


def _http_call(port: int, policy: NetworkPolicy) -> Any:
    config = {"t": {"endpoint": f"http://localhost:{port}/hit", "retry_count": 1}}
    tools = ToolRegistry()
    with HttpToolset.from_config(config, network_policy=policy) as toolset:
        toolset.register_into(tools)
        return tools.call_sync("t", {})


def test_an_http_tool_connects_to_the_judged_address(port: int) -> None:
    result = _http_call(port, JUDGED)
    assert result.structured == {"served_by": "127.0.0.2"}
    assert HITS == {"127.0.0.2": 1}


def test_an_http_tool_never_falls_back_to_the_name(port: int) -> None:
    result = _http_call(port, BLIND)
    assert result.code is ErrorCode.UNREACHABLE
    assert "does not resolve" in result.content
    assert HITS == {}


def test_the_openapi_fetch_connects_to_the_judged_address(port: int) -> None:
    url = f"http://localhost:{port}/openapi.json"
    toolset = HttpToolset.from_openapi(url, base_url="http://localhost", network_policy=JUDGED)
    assert [tool.name for tool in toolset.tools] == ["served_by_127_0_0_2"]
    assert HITS == {"127.0.0.2": 1}
    with pytest.raises(HttpConfigError, match="does not resolve"):
        HttpToolset.from_openapi(url, base_url="http://localhost", network_policy=BLIND)
    assert HITS == {"127.0.0.2": 1}


def test_a_remote_mcp_server_is_never_reached_by_name(port: int) -> None:
    config = {"s": {"url": f"http://localhost:{port}/mcp", "retries": 0}}

    async def main() -> ToolError:
        async with McpClientPool(config, network=BLIND) as pool:
            try:
                await pool.connect()
            except ToolError as exc:
                return exc
        raise AssertionError("connected by name")

    error = anyio.run(main)
    assert error.code is ErrorCode.UNREACHABLE
    assert "does not resolve" in error.message
    assert HITS == {}


def test_the_identity_provider_exchange_is_pinned(port: int) -> None:
    provide = fetch_id_jag(f"http://localhost:{port}/token", id_token="id", network=JUDGED)
    assert anyio.run(provide, "https://as.example", "https://mcp.example") == (
        "token-from-127.0.0.2"
    )
    blind = fetch_id_jag(f"http://localhost:{port}/token", id_token="id", network=BLIND)
    with pytest.raises(Exception, match="does not resolve"):
        anyio.run(blind, "https://as.example", "https://mcp.example")
    assert HITS == {"127.0.0.2": 1}


def test_the_headless_authorization_flow_is_pinned(port: int) -> None:
    flow = headless_flow(network=JUDGED)

    async def main() -> str:
        await flow.open(f"http://localhost:{port}/authorize")
        return (await flow.wait()).code

    assert anyio.run(main) == "code-from-127.0.0.2"
    assert HITS == {"127.0.0.2": 1}
