"""The pooled clients of HTTP endpoint tools: pinned, no redirects, no cookie jar."""

from __future__ import annotations

from typing import Any

import httpx

from adapters._net import pinned_httpx_sync_transport, pinned_httpx_transport
from adapters.http._body import ACCEPT_ENCODING
from adapters.network import NetworkPolicy

__all__ = ["endpoint_client", "endpoint_sync_client"]


class _NoCookies(httpx.Cookies):
    """A jar that keeps nothing: a ``Set-Cookie`` answer is dropped, none is ever sent."""

    def extract_cookies(self, response: httpx.Response) -> None:
        """Keep nothing."""

    def set_cookie_header(self, request: httpx.Request) -> None:
        """Send nothing."""


_NONE = _NoCookies()


class _NoJar:
    """A client's cookie jar that is always empty (first in the client class's bases)."""

    @property
    def cookies(self) -> httpx.Cookies:
        """Always empty."""
        return _NONE

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        """Ignored: the client keeps no cookies."""


class _CookielessClient(_NoJar, httpx.AsyncClient):  # type: ignore[misc]
    """An ``httpx.AsyncClient`` whose cookie jar is always empty."""


class _CookielessSyncClient(_NoJar, httpx.Client):  # type: ignore[misc]
    """An ``httpx.Client`` whose cookie jar is always empty."""


def endpoint_client(policy: NetworkPolicy, *, server: str) -> httpx.AsyncClient:
    """The client one toolset shares on one event loop.

    Rules:

    * Connections go only to addresses the policy checked when they are opened (no gap for DNS
      rebinding between check and connect).
    * Redirects are not followed, so a response cannot send a request past the policy.
    * Only encodings decoded within the response cap are asked for; the tool logs the wire
      itself, after its bounded read (an event hook would read the body unbounded).
    * No cookie jar: the tools of a toolset serve every caller, so a cookie one caller's call
      received must never ride on another's (and keeping none saves parsing every answer's
      headers for one). A credential is the tool's configured auth or a header parameter.
    """
    return _CookielessClient(
        transport=pinned_httpx_transport(policy, server=server),
        follow_redirects=False,
        trust_env=False,
        headers={"accept-encoding": ACCEPT_ENCODING},
    )


def endpoint_sync_client(policy: NetworkPolicy, *, server: str) -> httpx.Client:
    """The blocking client one toolset shares across threads, under the rules above.

    Every wait of a request sent within :func:`adapters._net.attempt_deadline` ends by
    that deadline. ``policy`` must be a :class:`NetworkPolicy` itself (it judges blocking
    lookups); a subclass's tools use the async client.
    """
    return _CookielessSyncClient(
        transport=pinned_httpx_sync_transport(policy, server=server),
        follow_redirects=False,
        trust_env=False,
        headers={"accept-encoding": ACCEPT_ENCODING},
    )
