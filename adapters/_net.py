"""An httpx transport that connects only to the addresses the network policy checked.

Resolving a name to check it and letting the HTTP client resolve it again to connect leaves a
gap: a DNS answer that changes in between (DNS rebinding) sends the request somewhere the
policy never saw. :func:`pinned_transport` closes it: each new connection asks
:meth:`adapters.network.NetworkPolicy.addresses` for the checked addresses of the host and
connects to one of them. TLS still verifies the certificate against the host name, because
the name (not the address) stays the request's origin.

Rule: every outbound connection of the library goes through a pinned transport (HTTP endpoint
tools, the OpenAPI document fetch, remote MCP servers, OAuth and identity-provider endpoints).
A name the policy cannot resolve fails as a connection error (unreachable); it is never
connected to by name, where a lookup the policy never saw would pick the address.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from adapters.network import HostNotFoundError, NetworkPolicy

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
        connect_error: The library's connection error, raised for a name that does not resolve.
        server: Named in denial messages.
    """

    def __init__(
        self,
        policy: NetworkPolicy,
        inner: Any,
        *,
        connect_error: type[Exception] = OSError,
        server: str = "",
    ) -> None:
        self._policy = policy
        self._server = server
        self._inner = inner
        self._connect_error = connect_error

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> Any:
        """Check ``host`` now and connect to its checked addresses, in order, until one answers.

        Only a policy that judges no names (``resolve`` off, every address kind allowed)
        returns no address; then, and only then, the name itself is connected to.

        Raises:
            NetworkPolicyError: The host is, or now resolves to, a denied address.
            Exception: The library's connection error: the name does not resolve, or no
                checked address accepted the connection.
        """
        try:
            addresses = await self._policy.addresses(host, server=self._server)
        except HostNotFoundError as exc:
            raise self._connect_error(str(exc)) from None
        failure: Exception | None = None
        for target in addresses or [host]:
            try:
                return await self._inner.connect_tcp(
                    target,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except self._connect_error as exc:
                failure = exc
        assert failure is not None
        raise failure

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


def _pin(
    transport: Any, inner: Any, error: type[Exception], policy: NetworkPolicy, server: str
) -> None:
    # The pool only calls its backend's methods: the pinned wrapper stands in for its class.
    transport._pool._network_backend = PinnedBackend(
        policy, inner, connect_error=error, server=server
    )


def pinned_transport(policy: NetworkPolicy, *, server: str = "") -> httpx2.AsyncHTTPTransport:
    """An ``httpx2`` transport (no proxies from the environment) pinned by ``policy``."""
    import httpcore2
    import httpx2
    from httpcore2._backends.auto import AutoBackend

    transport = httpx2.AsyncHTTPTransport(trust_env=False)
    _pin(transport, AutoBackend(), httpcore2.ConnectError, policy, server)
    return transport


def pinned_httpx_transport(policy: NetworkPolicy, *, server: str = "") -> httpx.AsyncHTTPTransport:
    """The same for ``httpx`` (HTTP endpoint tools): connections go to checked addresses only."""
    import httpcore
    import httpx
    from httpcore._backends.auto import AutoBackend

    transport = httpx.AsyncHTTPTransport(trust_env=False)
    _pin(transport, AutoBackend(), httpcore.ConnectError, policy, server)
    return transport
