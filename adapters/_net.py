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

:func:`pinned_httpx_sync_transport` is the same for a blocking ``httpx.Client`` (HTTP endpoint
tools called from sync code), and holds every connect, TLS handshake, read and write of a
request sent within :func:`attempt_deadline` to that deadline: the socket's own timeouts are
cut to what is left of it, so a service that drips its answer is cut off at the deadline, not
one read timeout after it, and past the deadline nothing waits at all.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from adapters.network import HostNotFoundError, NetworkPolicy

if TYPE_CHECKING:
    import httpx
    import httpx2

__all__ = [
    "PinnedBackend",
    "attempt_deadline",
    "pinned_httpx_sync_transport",
    "pinned_httpx_transport",
    "pinned_transport",
]

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


#: The ``time.monotonic()`` instant the current attempt must end by (``None``: no deadline).
_DEADLINE: ContextVar[float | None] = ContextVar("toolkit_http_deadline", default=None)


@contextmanager
def attempt_deadline(seconds: float) -> Iterator[float]:
    """Hold every network wait of this thread's blocking requests to ``seconds`` from now.

    Yields:
        The deadline, as a ``time.monotonic()`` instant.
    """
    deadline = time.monotonic() + seconds
    token = _DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        _DEADLINE.reset(token)


def _bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """``timeout`` cut to what is left of the deadline; ``expired`` when nothing is left."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the attempt's deadline has passed")
    return left if timeout is None or timeout > left else timeout


class _Timeouts:
    """httpcore's timeout errors (imported where a blocking transport is built)."""

    __slots__ = ("connect", "read", "write")

    def __init__(self, connect: type[Exception], read: type[Exception], write: type[Exception]):
        self.connect, self.read, self.write = connect, read, write


class _BoundedStream:
    """A blocking connection whose every wait ends by the deadline of the attempt using it."""

    __slots__ = ("_errors", "_inner")

    def __init__(self, inner: Any, errors: _Timeouts) -> None:
        self._inner = inner
        self._errors = errors

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, _bounded(timeout, self._errors.read))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, self._errors.write))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> _BoundedStream:
        bounded = _bounded(timeout, self._errors.connect)
        inner = self._inner.start_tls(ssl_context, server_hostname, bounded)
        return _BoundedStream(inner, self._errors)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinnedSyncBackend:
    """httpcore's blocking backend, connecting only to policy-checked addresses.

    Only a policy of the :class:`NetworkPolicy` class itself judges blocking lookups
    (:meth:`NetworkPolicy.addresses_sync`); a subclass decides in its async methods, so its
    callers use the async transport.
    """

    def __init__(
        self,
        policy: NetworkPolicy,
        inner: Any,
        errors: _Timeouts,
        connect_error: type[Exception],
        server: str,
    ) -> None:
        self._policy = policy
        self._inner = inner
        self._errors = errors
        self._connect_error = connect_error
        self._server = server

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> _BoundedStream:
        """Check ``host`` now and connect to its checked addresses, within the deadline.

        Raises:
            NetworkPolicyError: As :meth:`PinnedBackend.connect_tcp`.
            Exception: httpcore's connection error or connect timeout.
        """
        try:
            addresses = self._policy.addresses_sync(host, server=self._server)
        except HostNotFoundError as exc:
            raise self._connect_error(str(exc)) from None
        failure: Exception | None = None
        for target in addresses or [host]:
            try:
                stream = self._inner.connect_tcp(
                    target,
                    port,
                    timeout=_bounded(timeout, self._errors.connect),
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except self._connect_error as exc:
                failure = exc
            else:
                return _BoundedStream(stream, self._errors)
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> Any:
        """Unix sockets bypass the policy: refused."""
        raise PermissionError("the network policy allows TCP connections only")

    def sleep(self, seconds: float) -> None:
        """Sleep in this thread."""
        time.sleep(seconds)


def pinned_httpx_sync_transport(policy: NetworkPolicy, *, server: str = "") -> httpx.HTTPTransport:
    """A blocking ``httpx`` transport: checked addresses only, every wait within the deadline.

    ``policy`` must be a :class:`NetworkPolicy` itself (see :class:`_PinnedSyncBackend`).
    """
    import httpcore
    import httpx

    transport = httpx.HTTPTransport(trust_env=False)
    errors = _Timeouts(httpcore.ConnectTimeout, httpcore.ReadTimeout, httpcore.WriteTimeout)
    pool: Any = transport._pool  # the pool only calls its backend's methods
    pool._network_backend = _PinnedSyncBackend(
        policy, httpcore.SyncBackend(), errors, httpcore.ConnectError, server
    )
    return transport
