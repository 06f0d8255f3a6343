"""Bearer tokens mapped to callers: who is calling reaches the tool and the policy, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app
from adapters.mcp_server._callers import load_callers
from tests.adapters.mcp_server.conftest import serving
from toolkit import ToolRegistry, mcp_tool
from toolkit.context import ToolContext
from toolkit.policy import CallRequest, Decision

ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"


@mcp_tool
def whoami(context: ToolContext) -> str:
    """Say who is calling."""
    return f"{context.get('caller')}@{context.get('tenant')} {context.get('scopes')}"


@mcp_tool
def delete_everything() -> str:
    """Delete everything (admins only)."""
    return "deleted"


def admins_only(request: CallRequest) -> Decision:
    if request.tool == "delete_everything":
        return "allow" if "admin" in request.context.get("scopes", []) else "deny"
    return "allow"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    mp = pytest.MonkeyPatch()
    mp.setenv("ALICE_TOKEN", ALICE)
    mp.setenv("BOB_TOKEN", BOB)
    callers = load_callers(
        {
            "callers": {
                "alice": {"token": "${ALICE_TOKEN}", "tenant": "acme", "scopes": ["admin"]},
                "bob": {"token": "${BOB_TOKEN}", "tenant": "globex", "scopes": ["read"]},
            }
        }
    )
    registry = ToolRegistry(policy=admins_only)
    registry.register(whoami)
    registry.register(delete_everything)
    with serving(http_app(build_server(registry, callers=callers))) as url:
        yield url
    mp.undo()


def _client(base_url: str, token: str) -> Client:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(20)
    )
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode="legacy")


@pytest.mark.anyio
async def test_each_caller_sees_and_runs_what_the_policy_allows_them(base_url: str) -> None:
    async with _client(base_url, ALICE) as alice:
        alice_tools = [t.name for t in (await alice.list_tools()).tools]
        alice_who = await alice.call_tool("whoami", {})
        deleted = await alice.call_tool("delete_everything", {})
    async with _client(base_url, BOB) as bob:
        bob_tools = [t.name for t in (await bob.list_tools()).tools]
        bob_who = await bob.call_tool("whoami", {})
        with pytest.raises(MCPError, match="no tool named 'delete_everything'") as refused:
            await bob.call_tool("delete_everything", {})  # hidden from bob: it does not exist
    assert alice_tools == ["whoami", "delete_everything"]
    assert bob_tools == ["whoami"]
    assert _text(alice_who) == "alice@acme ['admin']"
    assert _text(bob_who) == "bob@globex ['read']"
    assert deleted.is_error is False
    assert "Available tools: whoami." in str(refused.value)


def test_an_unknown_token_is_refused_before_any_method(base_url: str) -> None:
    # Every method needs a caller's token, the handshake included: a 401 before the SDK.
    for method in ("initialize", "tools/list", "tools/call"):
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {}}
        for auth in ({}, {"Authorization": "Bearer not-a-known-token-at-all"}):
            answer = httpx2.post(
                f"{base_url}/mcp",
                json=body,
                headers={"Accept": "application/json, text/event-stream", **auth},
            )
            assert answer.status_code == 401
            assert "callers file" in answer.json()["error_description"]


def test_a_caller_without_a_token_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="has no 'token'"):
        load_callers({"callers": {"eve": {"tenant": "x"}}})


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
