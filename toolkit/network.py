"""Which network targets a tool source may reach: :class:`NetworkPolicy`.

Shared by every source that opens connections (remote MCP servers over HTTP, HTTP endpoint
tools), so one policy object governs them all.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio.to_thread

__all__ = ["NetworkPolicy", "NetworkPolicyError"]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Cloud metadata endpoints: credentials live there, so they are never a valid target.
METADATA_HOSTS = frozenset(
    {
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS IPv6
        "100.100.100.200",  # Alibaba Cloud
        "metadata.google.internal",
        "metadata",
    }
)


class NetworkPolicyError(PermissionError):
    """A server URL points somewhere the policy forbids."""


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """Allowed destinations for HTTP servers.

    The default trusts the config (any address but cloud metadata). Use
    :meth:`untrusted` for configs that come from users or other outside sources.

    Attributes:
        allow_loopback: Allow 127.0.0.0/8 and ::1.
        allow_private: Allow private ranges (10/8, 172.16/12, 192.168/16, fc00::/7).
        allow_link_local: Allow 169.254/16 and fe80::/10 (metadata addresses never).
        resolve: Resolve host names and check every address they resolve to.
    """

    allow_loopback: bool = True
    allow_private: bool = True
    allow_link_local: bool = True
    resolve: bool = True

    @classmethod
    def untrusted(cls) -> NetworkPolicy:
        """Public internet only: no loopback, private or link-local targets."""
        return cls(allow_loopback=False, allow_private=False, allow_link_local=False)

    async def check(self, url: str, *, server: str = "") -> None:
        """Raise :class:`NetworkPolicyError` if ``url`` is not an allowed target."""
        host = (urlsplit(url).hostname or "").lower().rstrip(".")
        label = f"server {server!r}" if server else "the server"
        if not host:
            raise NetworkPolicyError(f"{label}: URL has no host; write http(s)://host:port/path")
        if host in METADATA_HOSTS:
            raise NetworkPolicyError(
                f"{label}: {host} is a cloud metadata address and is always denied"
            )
        for address in await self._addresses(host):
            reason = self._denial(address)
            if reason:
                raise NetworkPolicyError(
                    f"{label}: {host} resolves to {address}, a {reason} address, which this "
                    "network policy denies; use a public address or a trusted config"
                )

    async def _addresses(self, host: str) -> list[IPAddress]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        if not self.resolve:
            return []
        try:
            infos = await anyio.to_thread.run_sync(socket.getaddrinfo, host, None)
        except OSError:
            return []  # the connection attempt will report the unknown host
        return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]

    def _denial(self, address: IPAddress) -> str | None:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped  # ::ffff:a.b.c.d is a.b.c.d on the wire
        if str(address) in METADATA_HOSTS:
            return "cloud metadata"
        if address.is_loopback and not self.allow_loopback:
            return "loopback"
        if address.is_link_local and not self.allow_link_local:
            return "link-local"
        if address.is_private and not (address.is_loopback or address.is_link_local):
            return None if self.allow_private else "private"
        if address.is_unspecified or address.is_multicast or address.is_reserved:
            return "non-routable"
        return None
