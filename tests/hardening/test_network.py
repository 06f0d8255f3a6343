"""Encoded metadata addresses are denied; the address checked is the address connected to."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import httpx2
import pytest

from adapters._net import pinned_transport
from adapters.mcp_client import McpClientPool, McpConfigError
from adapters.mcp_server import build_server, http_app
from adapters.network import NetworkPolicy, NetworkPolicyError
from tests.adapters.mcp_server.conftest import serving
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode, ToolError


@pytest.mark.parametrize(
    "host",
    [
        "[::ffff:169.254.169.254]",
        "[::ffff:a9fe:a9fe]",
        "2852039166",
        "0xa9fea9fe",
        "0251.0376.0251.0376",
        "169.254.43518",
        "METADATA.google.internal.",
        "[2002:a9fe:a9fe::]",  # 6to4
        "[2002:a9fe:a9fe:1::5]",
        "[64:ff9b::a9fe:a9fe]",  # NAT64, well-known prefix
        "[64:ff9b:1::a9fe:a9fe]",  # NAT64, local-use prefix
        "[::ffff:0:a9fe:a9fe]",  # IPv4-translated
        "[2001:0:4136:e378:8000:63bf:5601:5601]",  # Teredo, client 169.254.169.254
    ],
)
def test_encoded_metadata_addresses_are_denied(host: str) -> None:
    with pytest.raises(NetworkPolicyError, match="metadata"):
        anyio.run(NetworkPolicy().check, f"http://{host}/mcp")


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("100.64.0.1", "shared"),
        ("100.127.255.254", "shared"),
        ("[::ffff:100.64.0.1]", "shared"),
        ("[2002:0a00:0001::1]", "private"),  # 6to4 of 10.0.0.1
        ("[2002:7f00:0001::1]", "loopback"),  # 6to4 of 127.0.0.1
        ("0.0.0.0", "loopback"),
    ],
)
def test_the_untrusted_policy_denies_shared_space_and_embedded_private_addresses(
    host: str, kind: str
) -> None:
    with pytest.raises(NetworkPolicyError, match=kind):
        anyio.run(NetworkPolicy.untrusted().check, f"http://{host}/mcp")


@pytest.mark.parametrize("host", ["8.8.8.8", "[2002:808:808::1]", "[2606:4700::1111]"])
def test_the_untrusted_policy_still_allows_public_addresses(host: str) -> None:
    anyio.run(NetworkPolicy.untrusted().check, f"http://{host}/mcp")  # decision only


def test_encoded_loopback_is_denied_by_the_untrusted_policy() -> None:
    with pytest.raises(NetworkPolicyError, match="loopback"):
        anyio.run(NetworkPolicy.untrusted().check, "http://2130706433:8000/mcp")


@dataclass(frozen=True, slots=True)
class _Answers(NetworkPolicy):
    """A policy whose name resolution answers from a table (what DNS would say now)."""

    table: tuple[tuple[str, str], ...] = ()

    async def _addresses(self, host: str) -> list[object]:  # type: ignore[override]
        import ipaddress

        return [ipaddress.ip_address(a) for h, a in self.table if h == host]


async def _get(policy: NetworkPolicy, url: str) -> int:
    async with httpx2.AsyncClient(transport=pinned_transport(policy)) as client:
        return (await client.get(url)).status_code


def test_pinned_transport_connects_to_the_checked_address() -> None:
    policy = _Answers(table=(("service.test", "127.0.0.1"),))
    with serving(http_app(build_server(ToolRegistry(), name="p"), allowed_hosts=["*"])) as url:
        port = url.rsplit(":", 1)[1]
        # The name resolves nowhere else: the request can only arrive through the pinned address.
        assert anyio.run(_get, policy, f"http://service.test:{port}/healthz") == 200


def test_pinned_transport_checks_at_connect_time() -> None:
    rebound = _Answers(allow_loopback=False, table=(("service.test", "127.0.0.1"),))
    with serving(http_app(build_server(ToolRegistry(), name="p"), allowed_hosts=["*"])) as url:
        port = url.rsplit(":", 1)[1]
        with pytest.raises(NetworkPolicyError, match="loopback"):
            anyio.run(_get, rebound, f"http://service.test:{port}/healthz")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.test/mcp", "ws://h/mcp"])
def test_non_http_urls_are_refused_when_the_config_loads(url: str) -> None:
    with pytest.raises(McpConfigError, match=r"http\(s\)://host:port/path"):
        McpClientPool({"mcpServers": {"bad": {"url": url}}})


@dataclass(frozen=True, slots=True)
class _Rebinding(NetworkPolicy):
    """DNS that answers a public address first and loopback afterwards (a rebinding attack)."""

    answers: list[str] = field(default_factory=lambda: ["93.184.216.34", "127.0.0.1"])

    async def _addresses(self, host: str) -> list[object]:  # type: ignore[override]
        import ipaddress

        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return [ipaddress.ip_address(answer)]


def test_dns_rebinding_between_check_and_connect_is_denied() -> None:
    policy = _Rebinding(allow_loopback=False)
    with serving(http_app(build_server(ToolRegistry(), name="p"), allowed_hosts=["*"])) as url:
        port = url.rsplit(":", 1)[1]
        config = {"victim": {"url": f"http://service.test:{port}/mcp", "retries": 0}}

        async def main() -> ToolError:
            async with McpClientPool(config, network=policy) as pool:
                try:
                    await pool.connect()
                except ToolError as exc:
                    return exc
            raise AssertionError("connected to the rebound address")

        error = anyio.run(main)
    assert error.code == ErrorCode.DENIED
    assert "loopback" in error.message


def test_http_tool_under_dns_rebinding_is_denied() -> None:
    from adapters.http import HttpToolset

    with serving(http_app(build_server(ToolRegistry(), name="p"), allowed_hosts=["*"])) as url:
        port = url.rsplit(":", 1)[1]
        # The check before sending sees a public address; at connect time the name is loopback,
        # and only the pinned connection stops the request from reaching it.
        policy = _Rebinding(allow_loopback=False)
        config = {"probe": {"endpoint": f"http://service.test:{port}/healthz", "method": "GET"}}
        with HttpToolset.from_config(config, network_policy=policy) as toolset:
            tools = ToolRegistry()
            toolset.register_into(tools)
            result = tools.call_sync("probe", {})
    assert result.is_error
    assert result.code == ErrorCode.DENIED
    assert "loopback" in str(result.content)
