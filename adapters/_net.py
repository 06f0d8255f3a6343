"""An httpx transport that connects only to the addresses the network policy checked.

Resolving a name to check it and letting the HTTP client resolve it again to connect leaves a
gap: a DNS answer that changes in between (DNS rebinding) sends the request somewhere the
policy never saw. :func:`pinned_transport` closes it: each new connection asks
:meth:`toolkit.network.NetworkPolicy.addresses` for the checked addresses of the host and
connects to one of them. TLS still verifies the certificate against the host name, because
the name (not the address) stays the request's origin. Shared by every adapter that opens
HTTP connections (remote MCP servers, HTTP endpoint tools).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from toolkit.network import NetworkPolicy

if TYPE_CHECKING:
    import httpx
    import httpx2

__all__ = ["PinnedBackend", "pinned_httpx_transport", "pinned_transport"]

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


class PinnedBackend:
    """A network backend whose TCP connections go to policy-checked addresses only.

    It wraps the connection library's own backend (httpcore's for ``httpx``, httpcore2's for
    the ``httpx2`` the MCP SDK uses) and only changes where a TCP connection goes.

    Args:
        policy: The decision.
        inner: The library's default network backend, which opens the sockets.
        server: Named in denial messages.
    """

    def __init__(self, policy: NetworkPolicy, inner: Any, *, server: str = "") -> None:
        self._policy = policy
        self._server = server
        self._inner = inner

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> Any:
        """Check ``host`` now and connect to the first checked address (or by name if none).

        Raises:
            NetworkPolicyError: The host is, or now resolves to, a denied address.
        """
        addresses = await self._policy.addresses(host, server=self._server)
        target = addresses[0] if addresses else host
        return await self._inner.connect_tcp(
            target,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> Any:
        """Unix sockets bypass the policy: refused."""
        raise PermissionError("the network policy allows TCP connections only")

    async def sleep(self, seconds: float) -> None:
        """Sleep on the running event loop."""
        await self._inner.sleep(seconds)


def _pin(transport: Any, inner: Any, policy: NetworkPolicy, server: str) -> None:
    # The pool only calls its backend's methods: the pinned wrapper stands in for its class.
    transport._pool._network_backend = PinnedBackend(policy, inner, server=server)


def pinned_transport(policy: NetworkPolicy, *, server: str = "") -> httpx2.AsyncHTTPTransport:
    """An ``httpx2`` transport (no proxies from the environment) pinned by ``policy``."""
    import httpx2
    from httpcore2._backends.auto import AutoBackend

    transport = httpx2.AsyncHTTPTransport(trust_env=False)
    _pin(transport, AutoBackend(), policy, server)
    return transport


def pinned_httpx_transport(policy: NetworkPolicy, *, server: str = "") -> httpx.AsyncHTTPTransport:
    """The same for ``httpx`` (HTTP endpoint tools): connections go to checked addresses only."""
    import httpx
    from httpcore._backends.auto import AutoBackend

    transport = httpx.AsyncHTTPTransport(trust_env=False)
    _pin(transport, AutoBackend(), policy, server)
    return transport
