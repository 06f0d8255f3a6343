"""Which network targets a tool source may reach: :class:`NetworkPolicy`.

Shared by every source that opens connections (remote MCP servers over HTTP, HTTP endpoint
tools), so one policy object governs them all. It lives with the adapters because the core opens
no connection; it needs only the standard library and anyio, so no extra is needed to import it.

Design rules: an address is judged in its canonical form, so encoded spellings of a denied
address (``[::ffff:169.254.169.254]``, ``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``)
are denied like the plain one. And the address checked is the address connected to: every
outbound connection of the library (HTTP endpoint tools, the OpenAPI document fetch, remote
MCP servers, OAuth and identity-provider endpoints) goes through the pinned transport
(``adapters._net``), which asks :meth:`NetworkPolicy.addresses` for the checked addresses and
connects to one of them instead of resolving the name again, so a DNS answer that changes
between check and connect (DNS rebinding) cannot slip through. A name the policy cannot
resolve is never connected to by name: :class:`HostNotFoundError` (the caller reports it as
unreachable). Only a policy that allows every address kind and turns ``resolve`` off lets a
name through unjudged.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio.to_thread

__all__ = ["HostNotFoundError", "NetworkPolicy", "NetworkPolicyError"]

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


class HostNotFoundError(OSError):
    """A host name the policy could not resolve: nothing was judged, so nothing is connected."""


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """Allowed destinations for HTTP servers.

    The default trusts the config (any address but cloud metadata). Use
    :meth:`untrusted` for configs that come from users or other outside sources.

    Attributes:
        allow_loopback: Allow 127.0.0.0/8 and ::1.
        allow_private: Allow private ranges (10/8, 172.16/12, 192.168/16, fc00::/7).
        allow_link_local: Allow 169.254/16 and fe80::/10 (metadata addresses never).
        resolve: Resolve host names and check every address they resolve to. Off, a name
            is connected to unjudged, so only a policy that allows every kind of address
            (loopback, private, link-local) accepts names then; a stricter one denies them.
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
        await self.addresses(urlsplit(url).hostname or "", server=server)

    def check_sync(self, url: str, *, server: str = "") -> None:
        """:meth:`check` for blocking code (see :meth:`addresses_sync`)."""
        self.addresses_sync(urlsplit(url).hostname or "", server=server)

    async def addresses(self, host: str, *, server: str = "") -> list[str]:
        """The allowed addresses of ``host`` (connect to one of these, never to the name).

        Empty only when ``resolve`` is off and the policy allows every kind of address: then,
        and only then, the caller connects by name.

        Raises:
            NetworkPolicyError: ``host`` is, or resolves to, an address the policy denies, or
                is a name that a policy with ``resolve`` off cannot judge.
            HostNotFoundError: ``host`` does not resolve (no fallback to the name).
        """
        host, label = self._named(host, server)
        return self._allowed(host, await self._addresses(host), label)

    def addresses_sync(self, host: str, *, server: str = "") -> list[str]:
        """:meth:`addresses` for blocking code (a name is resolved in the calling thread).

        The decision is the same; a subclass that overrides :meth:`addresses` is not asked
        here, so blocking callers use this only with a policy of this very class.

        Raises:
            NetworkPolicyError: As :meth:`addresses`.
            HostNotFoundError: As :meth:`addresses`.
        """
        host, label = self._named(host, server)
        literal = _literal(host)
        found = [literal] if literal is not None else _resolved(host) if self.resolve else []
        return self._allowed(host, found, label)

    async def _addresses(self, host: str) -> list[IPAddress]:
        literal = _literal(host)
        if literal is not None:
            return [literal]
        if not self.resolve:
            return []
        return await anyio.to_thread.run_sync(_resolved, host)

    def _named(self, host: str, server: str) -> tuple[str, str]:
        """``host`` in canonical form and who asks, or a denial that needs no lookup."""
        host = host.lower().strip("[]").rstrip(".")
        label = f"server {server!r}" if server else "the server"
        if not host:
            raise NetworkPolicyError(f"{label}: URL has no host; write http(s)://host:port/path")
        if host in METADATA_HOSTS:
            raise NetworkPolicyError(
                f"{label}: {host} is a cloud metadata address and is always denied"
            )
        return host, label

    def _allowed(self, host: str, found: list[IPAddress], label: str) -> list[str]:
        if not found:
            if self.resolve:
                raise HostNotFoundError(f"{label}: the host name {host!r} does not resolve")
            if not (self.allow_loopback and self.allow_private and self.allow_link_local):
                raise NetworkPolicyError(
                    f"{label}: {host} is a name, and this network policy does not resolve names "
                    "to judge them; use an address, or a policy with resolve=True"
                )
        for address in found:
            reason = self._denial(address)
            if reason:
                raise NetworkPolicyError(
                    f"{label}: {host} resolves to {address}, a {reason} address, which this "
                    "network policy denies; use a public address or a trusted config"
                )
        return [str(a) for a in found]

    def _denial(self, address: IPAddress) -> str | None:
        return _judged(address, self.allow_loopback, self.allow_private, self.allow_link_local)


def _resolved(host: str) -> list[IPAddress]:
    """Every address ``host`` resolves to (none when it does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return []
    return [_canonical(ipaddress.ip_address(str(info[4][0]).split("%")[0])) for info in infos]


@functools.lru_cache(maxsize=1024)  # an address's standing never changes: judge it once
def _judged(
    address: IPAddress, allow_loopback: bool, allow_private: bool, allow_link_local: bool
) -> str | None:
    """Why ``address`` is denied, or ``None``.

    Rule: an IPv6 address that carries an IPv4 address (6to4 ``2002::/16``, Teredo, NAT64
    ``64:ff9b::/96`` and ``64:ff9b:1::/48``, IPv4-translated ``::ffff:0:a.b.c.d``) is judged
    as that IPv4 address too, and denied if either is. An address that is not globally
    reachable (shared address space ``100.64.0.0/10`` included) counts as private.
    """
    address = _canonical(address)
    flags = (allow_loopback, allow_private, allow_link_local)
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded(address)
        if inner is not None:
            reason = _kind(inner, *flags)
            if reason is not None:
                return reason
    return _kind(address, *flags)


def _kind(
    address: IPAddress, allow_loopback: bool, allow_private: bool, allow_link_local: bool
) -> str | None:
    if str(address) in METADATA_HOSTS:
        return "cloud metadata"
    if address.is_loopback or address.is_unspecified:  # 0.0.0.0 and :: reach this machine
        return None if allow_loopback else "loopback"
    if address.is_link_local:
        return None if allow_link_local else "link-local"
    if address.is_multicast:
        return "non-routable"
    if address.is_private or not address.is_global:
        if allow_private:
            return None if address.is_private or not address.is_reserved else "non-routable"
        return "shared (carrier-grade NAT)" if address in _SHARED else "private"
    if address.is_reserved:
        return "non-routable"
    return None


_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))


def _embedded(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (6to4, Teredo, NAT64, IPv4-translated)."""
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    packed = address.packed
    if any(address in net for net in _NAT64) or packed[:12] == bytes(8) + b"\xff\xff\0\0":
        return ipaddress.IPv4Address(packed[12:])
    return None


def _canonical(address: IPAddress) -> IPAddress:
    """IPv4 carried in IPv6 (mapped ``::ffff:a.b.c.d``, compatible ``::a.b.c.d``) as IPv4."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        packed = address.packed
        if packed[:12] == bytes(12) and int(address) > 1:
            return ipaddress.IPv4Address(packed[12:])
    return address


@functools.lru_cache(maxsize=1024)  # a literal's reading never changes: parse it once
def _literal(host: str) -> IPAddress | None:
    """``host`` as an address, also in the legacy IPv4 spellings C libraries accept.

    ``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376`` and ``169.254.43518`` all reach
    169.254.169.254 through ``inet_aton``; they are read the same way here.
    """
    try:
        return _canonical(ipaddress.ip_address(host.split("%")[0]))
    except ValueError:
        pass
    if not all(c in "0123456789abcdefx." for c in host) or not host[:1].isdigit():
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None
