"""Small things a user or operator reads: who the client says it is, what a 401 means."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import anyio

from adapters.mcp_client import McpClientPool
from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from tests.hardening.conftest import misbehaving
from toolkit import ToolRegistry, mcp_tool
from toolkit.errors import ErrorCode, ToolError


def test_client_introduces_itself_as_mcp_toolkit(log: Path) -> None:
    async def main() -> None:
        async with McpClientPool(misbehaving(log), grace=0.5) as pool:
            await pool.connect()

    anyio.run(main)
    info = json.loads((log / "client.json").read_text())
    assert info == {"name": "mcp-toolkit", "version": importlib.metadata.version("mcp-toolkit")}


@mcp_tool
def ping() -> str:
    """Answer pong."""
    return "pong"


def test_401_without_a_configured_token_says_so() -> None:
    registry = ToolRegistry()
    registry.register(ping)
    app = http_app(build_server(registry, name="locked"), token="s3cret-token")

    async def main(url: str) -> ToolError:
        async with McpClientPool({"locked": {"url": f"{url}/mcp", "retries": 0}}) as pool:
            try:
                await pool.connect()
            except ToolError as exc:
                return exc
        raise AssertionError("connected without a token")

    with serving(app) as url:
        error = anyio.run(main, url)
    assert error.code == ErrorCode.AUTH_FAILED
    assert "no token configured" in error.message


def test_host_check_is_case_insensitive_and_covers_healthz() -> None:
    import httpx

    app = http_app(build_server(ToolRegistry(), name="hosts"), allowed_hosts=["API.Example.test"])
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    accept = {"accept": "application/json, text/event-stream"}
    with serving(app) as url:
        upper = httpx.post(f"{url}/mcp", json=init, headers={**accept, "host": "LOCALHOST"})
        named = httpx.post(f"{url}/mcp", json=init, headers={**accept, "host": "api.EXAMPLE.test"})
        evil_health = httpx.get(f"{url}/healthz", headers={"host": "evil.test"})
        good_health = httpx.get(f"{url}/healthz", headers={"host": "LocalHost:1234"})
    assert upper.status_code == 200
    assert named.status_code == 200
    assert evil_health.status_code == 421
    assert good_health.status_code == 200


def test_server_correlation_ids_are_its_own_not_the_clients_json_rpc_ids() -> None:
    import httpx

    registry = ToolRegistry()
    registry.register(ping)
    seen: list[str] = []
    registry.subscribe(lambda record: seen.append(record.call_id))
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping"}}
    accept = {"accept": "application/json, text/event-stream"}
    with serving(http_app(build_server(registry, name="ids"))) as url:
        for _ in range(2):  # two clients, both numbering their first request 1
            assert httpx.post(f"{url}/mcp", json=call, headers=accept).json()["id"] == 1
    assert len(seen) == 2
    assert len(set(seen)) == 2
    assert "1" not in seen
