"""Callers hear only of their own tools, errors included (issue 22, item 4).

A caller the policy denies ``admin_purge_tenant`` must not learn that it exists: not from a
did-you-mean, not from the list of available tools, not from the parameter descriptions of a
validation error (visibility is decided before validation). Checked in the core for both entry
points, and over a real HTTP server with callers on 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from adapters.mcp_server import build_server, http_app, load_callers
from tests.support.serving import serving
from toolkit import CallOptions, ToolContext, ToolRegistry, mcp_tool
from toolkit.errors import ErrorCode
from toolkit.policy import CallRequest, Decision

ADMIN = "admin-token-0123456789abcdef"
GUEST = "guest-token-0123456789abcdef"
SECRET_WORDS = ("admin_purge_tenant", "tenant_id", "erased")


def _revealed(text: str, asked: str) -> list[str]:
    """The hidden tool's words in ``text``, apart from the name the caller sent itself."""
    text = text.replace(f"'{asked}'", "")
    return [word for word in SECRET_WORDS if word in text]


@mcp_tool
def admin_purge_tenant(tenant_id: str) -> str:
    """Purge a tenant.

    Args:
        tenant_id: The tenant whose data is erased forever.
    """
    return f"purged {tenant_id}"


@mcp_tool
def list_orders(status: str = "open") -> list[str]:
    """List orders."""
    return [status]


def admins_only(request: CallRequest) -> Decision:
    if request.tool.startswith("admin_"):
        return "allow" if "admin" in request.context.get("scopes", []) else "deny"
    return "allow"


def _registry() -> ToolRegistry:
    registry = ToolRegistry(policy=admins_only)
    registry.register(admin_purge_tenant)
    registry.register(list_orders)
    return registry


def _as(scopes: list[str]) -> CallOptions:
    return CallOptions(context=ToolContext(values={"scopes": scopes}), hide_denied=True)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("admin_purge_tenant", {}),  # validation would describe tenant_id
        ("admin_purge_tenant", {"tenant_id": "acme"}),  # valid, still unseen
        ("admin_purge_tenantt", {}),  # a typo: no did-you-mean to the hidden tool
        ("purge", {}),
    ],
)
def test_a_hidden_tool_does_not_exist_for_the_caller_on_both_entry_points(
    name: str, arguments: dict[str, str]
) -> None:
    registry = _registry()
    sync = registry.call_sync(name, arguments, options=_as(["read"]))
    results = [sync, registry.call_sync(name, arguments, options=_as([]))]
    for result in results:
        assert result.code is ErrorCode.TOOL_NOT_FOUND
        assert "list_orders" in result.content  # the caller's own tools are listed
        assert _revealed(result.content, name) == [], result.content


@pytest.mark.anyio
async def test_the_async_path_and_the_listing_follow_the_same_rule() -> None:
    registry = _registry()
    hidden = await registry.call("admin_purge_tenant", {}, options=_as(["read"]))
    shown = await registry.call("admin_purge_tenant", {}, options=_as(["admin"]))
    assert hidden.code is ErrorCode.TOOL_NOT_FOUND
    assert "tenant_id" not in hidden.content
    assert shown.code is ErrorCode.INVALID_PARAMS  # the admin sees it, so validation speaks
    assert "tenant_id" in shown.content
    guest = await registry.visible_names(ToolContext(values={"scopes": ["read"]}))
    assert guest == ["list_orders"]


def test_a_policy_that_cannot_answer_without_arguments_hides_the_tool() -> None:
    def by_amount(request: CallRequest) -> Decision:
        return "allow" if request.arguments["amount"] < 10 else "deny"

    registry = ToolRegistry(policy=by_amount)
    registry.register(list_orders)
    result = registry.call_sync("list_orders", {}, options=CallOptions(hide_denied=True))
    assert result.code is ErrorCode.TOOL_NOT_FOUND


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    mp = pytest.MonkeyPatch()
    mp.setenv("ADMIN_TOKEN", ADMIN)
    mp.setenv("GUEST_TOKEN", GUEST)
    callers = load_callers(
        {
            "callers": {
                "admin": {"token": "${ADMIN_TOKEN}", "scopes": ["admin"]},
                "guest": {"token": "${GUEST_TOKEN}", "scopes": ["read"]},
            }
        }
    )
    with serving(http_app(build_server(_registry(), callers=callers))) as url:
        yield url
    mp.undo()


def _call(base: str, token: str, name: str, arguments: dict[str, str]) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    return httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=20).text


def test_over_http_a_guest_hears_nothing_of_the_admin_tool(base: str) -> None:
    for name in ("admin_purge_tenant", "admin_purge_tenan", "list_order"):
        answer = _call(base, GUEST, name, {})
        assert "There is no tool named" in answer
        assert _revealed(answer, name) == [], answer
    admin = _call(base, ADMIN, "admin_purge_tenant", {})
    assert "tenant_id" in admin  # the admin is told how to call it
