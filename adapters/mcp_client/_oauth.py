"""OAuth 2.1 for remote MCP servers, on the ``mcp`` SDK's own ``OAuthClientProvider``.

The SDK does the protocol: protected-resource and authorization-server metadata discovery,
dynamic client registration (or a pre-registered ``client_id``), authorization code with PKCE,
scope selection and step-up, token refresh. This module supplies what the SDK leaves to the
application:

* :class:`FileTokenStorage` — tokens and client registration per server in a user-only file
  (mode 0600) under ``$MCP_TOOLKIT_HOME`` (default ``~/.config/mcp-toolkit``)``/oauth/``.
* :class:`OAuthFlow` — how the user authorizes: :func:`browser_flow` opens the browser (or
  prints the URL) and receives the redirect on a loopback port; :func:`headless_flow` follows
  the authorization URL itself, for authorization servers that approve without a person.

Rule: every answer of an OAuth endpoint is bounded in size and time. The SDK's requests
(metadata, registration, token) go through the MCP connection's client and its cap
(``max_message_bytes``, decoded) within the connect deadline; :func:`headless_flow` reads only
the redirect's head, never its body, within a total deadline; the browser flow's loopback
listener reads at most 64 KiB of the redirect, within the flow's ``timeout``.
"""

from __future__ import annotations

import json
import os
import sys
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import anyio.abc
import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from adapters._net import pinned_transport
from adapters.network import NetworkPolicy

__all__ = [
    "FileTokenStorage",
    "OAuthFlow",
    "browser_flow",
    "headless_flow",
    "oauth_provider",
    "token_path",
]

DEFAULT_REDIRECT = "http://127.0.0.1:33418/callback"


def token_path(server: str) -> Path:
    """Where the tokens of ``server`` are kept."""
    home = os.environ.get("MCP_TOOLKIT_HOME") or str(Path.home() / ".config" / "mcp-toolkit")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in server)
    return Path(home) / "oauth" / f"{safe}.json"


class FileTokenStorage(TokenStorage):
    """The SDK's ``TokenStorage`` in one JSON file readable by its owner only."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, Any]:
        try:
            data: dict[str, Any] = json.loads(self.path.read_text())
        except (FileNotFoundError, ValueError):
            return {}
        return data

    def _write(self, key: str, value: dict[str, Any]) -> None:
        data = self._read()
        data[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(data, out)
        os.chmod(self.path, 0o600)

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens, if any."""
        raw = self._read().get("tokens")
        return None if raw is None else OAuthToken.model_validate(raw)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens (after login or refresh)."""
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration, if any."""
        raw = self._read().get("client_info")
        return None if raw is None else OAuthClientInformationFull.model_validate(raw)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store the client registration."""
        self._write("client_info", client_info.model_dump(mode="json", exclude_none=True))


@dataclass(slots=True)
class OAuthFlow:
    """How the user grants access: show them ``url``, then wait for the redirect back.

    Attributes:
        redirect_uri: Where the authorization server sends the user back.
        open: Shows the authorization URL (browser, printed link, a test's own request).
        wait: Returns the code and state of the redirect.
    """

    redirect_uri: str
    open: Callable[[str], Awaitable[None]]
    wait: Callable[[], Awaitable[AuthorizationCodeResult]]


def browser_flow(redirect_uri: str = DEFAULT_REDIRECT, *, timeout: float = 300) -> OAuthFlow:
    """Open the browser (printing the URL too) and receive the redirect on a loopback port."""
    parsed = urlparse(redirect_uri)
    port = parsed.port or 80

    async def show(url: str) -> None:
        print(f"Open this URL to authorize:\n  {url}", file=sys.stderr)
        webbrowser.open(url)

    async def wait() -> AuthorizationCodeResult:
        with anyio.fail_after(timeout):
            return await _receive_redirect("127.0.0.1", port)

    return OAuthFlow(redirect_uri, show, wait)


def headless_flow(
    redirect_uri: str = DEFAULT_REDIRECT,
    network: NetworkPolicy | None = None,
    *,
    timeout: float = 30.0,
) -> OAuthFlow:
    """Follow the authorization URL without a person (servers that approve at once).

    The request goes only to an address ``network`` judged (default: any but cloud metadata).
    Only the answer's head is read (the redirect's ``Location``), within ``timeout`` seconds
    in all.
    """
    pending: dict[str, str] = {}

    async def show(url: str) -> None:
        pending["url"] = url

    async def wait() -> AuthorizationCodeResult:
        with anyio.fail_after(timeout):
            async with (
                httpx2.AsyncClient(
                    timeout=timeout,
                    follow_redirects=False,
                    trust_env=False,
                    transport=pinned_transport(
                        network or NetworkPolicy(), server="authorization server"
                    ),
                ) as http,
                http.stream("GET", pending.pop("url")) as response,
            ):
                pass  # the body is never read: the redirect is in the head
        location = response.headers.get("location", "")
        query = parse_qs(urlparse(location).query)
        if "code" not in query:
            raise PermissionError(
                f"The authorization server did not redirect back with a code "
                f"(HTTP {response.status_code}); log in with a browser instead."
            )
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    return OAuthFlow(redirect_uri, show, wait)


async def _receive_redirect(host: str, port: int) -> AuthorizationCodeResult:
    received: list[AuthorizationCodeResult] = []
    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)

    async with anyio.create_task_group() as tg:

        async def handle(stream: anyio.abc.SocketStream) -> None:
            async with stream:
                request = (await stream.receive(65536)).decode("latin-1")
                parts = request.split(" ", 2)
                query = parse_qs(urlparse(parts[1] if len(parts) > 1 else "/").query)
                body = b"You can close this window and return to the terminal."
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n"
                await stream.send(head.encode() + body)
            if "code" in query:
                received.append(
                    AuthorizationCodeResult(
                        code=query["code"][0],
                        state=query.get("state", [None])[0],
                        iss=query.get("iss", [None])[0],
                    )
                )
                tg.cancel_scope.cancel()

        tg.start_soon(listener.serve, handle)
    return received[0]


def oauth_provider(
    server: str,
    url: str,
    flow: OAuthFlow,
    *,
    scope: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
    client_metadata_url: str | None = None,
    storage: TokenStorage | None = None,
) -> OAuthClientProvider:
    """The SDK's ``httpx2.Auth`` for ``url``, with our storage and the user's ``flow``.

    A ``client_id`` (and ``client_secret``) pre-registers the client; without one the SDK
    registers dynamically (or uses ``client_metadata_url`` where the server supports it).
    """
    store = storage or FileTokenStorage(token_path(server))
    auth_method = "client_secret_basic" if client_secret else "none"
    metadata = OAuthClientMetadata(
        client_name="mcp-toolkit",
        redirect_uris=[AnyUrl(flow.redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=auth_method,  # type: ignore[arg-type]
        scope=scope,
    )
    if client_id:
        registration = OAuthClientInformationFull(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=[AnyUrl(flow.redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method=auth_method,
            scope=scope,
        )
        _preregister(store, registration)
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=store,
        redirect_handler=flow.open,
        callback_handler=flow.wait,
        client_metadata_url=client_metadata_url,
    )


def _preregister(store: TokenStorage, registration: OAuthClientInformationFull) -> None:
    if isinstance(store, FileTokenStorage):
        current = store._read().get("client_info", {})
        if current.get("client_id") != registration.client_id:
            store._write("client_info", registration.model_dump(mode="json", exclude_none=True))
