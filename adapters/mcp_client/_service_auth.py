"""OAuth without a person at a browser, on the ``mcp`` SDK's own extension providers.

* ``client_credentials``: a service signs in as itself (OAuth 2.1 client credentials, SEP-1046),
  with a client secret (``client_secret_basic`` / ``client_secret_post``) or a private-key JWT
  (RFC 7523, ``private_key_jwt``) that the SDK signs with the configured key.
* ``identity_assertion``: enterprise single sign-on (SEP-990, "cross-app access"). The user's
  ID token from the company's identity provider is exchanged there for an identity assertion
  grant (ID-JAG, RFC 8693 token exchange: this module's part), which the SDK presents to the
  MCP server's authorization server (RFC 7523 jwt-bearer) for an access token.

Tokens are kept per server in the same user-only file as ``"oauth"`` tokens.

Rule: every answer of an OAuth endpoint is bounded in size and time. The SDK's own requests
(metadata discovery, token) go through the MCP connection's client, capped like every answer
of the server (``max_message_bytes``, decoded) and within the connect or call deadline. The
identity provider's token exchange here reads at most :data:`AUTH_MAX_BYTES` decoded bytes,
and ``timeout`` is its total deadline (connect, send and every read), not a per-read one.
"""

from __future__ import annotations

import base64
import logging
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import anyio
import httpx2
from mcp import MCPDeprecationWarning
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

from adapters._net import pinned_transport
from adapters.mcp_client._bounded import AUTH_MAX_BYTES, AnswerTooLargeError, BoundedTransport
from adapters.mcp_client._config import AuthConfig, expand
from adapters.mcp_client._oauth import FileTokenStorage, token_path
from adapters.network import NetworkPolicy

__all__ = ["TOKEN_EXCHANGE", "fetch_id_jag", "service_auth"]

log = logging.getLogger("toolkit.mcp")

#: RFC 8693 grant and token types of the identity provider leg of SEP-990.
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


def service_auth(
    server: str, url: str, auth: AuthConfig, network: NetworkPolicy | None = None
) -> httpx2.Auth | None:
    """The SDK's ``httpx2.Auth`` for a ``client_credentials`` or ``identity_assertion`` server.

    ``None`` for other auth types. Credentials are expanded from ``${VAR}`` here, when the
    connection opens, never earlier. The SDK's own requests (discovery, token) go through the
    MCP connection's pinned client; the identity provider's exchange is pinned by ``network``.
    """
    storage = FileTokenStorage(token_path(server))
    scope = auth.scope
    issuer = expand(auth.issuer) if auth.issuer else None
    client_id = expand(auth.client_id or "")
    if auth.type == "client_credentials":
        if issuer is not None:
            return _client_credentials(url, storage, client_id, auth, issuer)
        log.warning(
            "MCP server %r: auth 'client_credentials' has no 'issuer', so its credentials go to "
            "whichever authorization server the MCP server names; set 'issuer' to your "
            "authorization server's issuer URL",
            server,
        )
        # The SDK says the same in a deprecation warning that is hidden by default.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            return _client_credentials(url, storage, client_id, auth, None)
    if auth.type == "identity_assertion":
        return IdentityAssertionOAuthProvider(
            server_url=url,
            storage=storage,
            client_id=client_id,
            client_secret=expand(auth.client_secret or ""),
            issuer=issuer or "",
            assertion_provider=fetch_id_jag(
                expand(auth.idp_token_endpoint or ""),
                id_token=expand(auth.id_token or ""),
                client_id=expand(auth.idp_client_id) if auth.idp_client_id else None,
                client_secret=expand(auth.idp_client_secret) if auth.idp_client_secret else None,
                network=network,
                server=server,
            ),
            scope=scope,
            token_endpoint_auth_method=auth.token_auth or "client_secret_basic",
        )
    return None


def _client_credentials(
    url: str, storage: FileTokenStorage, client_id: str, auth: AuthConfig, issuer: str | None
) -> OAuthClientProvider:
    if auth.client_secret:
        return ClientCredentialsOAuthProvider(
            server_url=url,
            storage=storage,
            client_id=client_id,
            client_secret=expand(auth.client_secret),
            token_endpoint_auth_method=auth.token_auth or "client_secret_basic",
            scope=auth.scope,
            issuer=issuer,
        )
    signing = SignedJWTParameters(
        issuer=client_id,
        subject=client_id,
        signing_key=_private_key(auth),
        signing_algorithm=auth.signing_algorithm,
    )
    return PrivateKeyJWTOAuthProvider(
        server_url=url,
        storage=storage,
        client_id=client_id,
        assertion_provider=signing.create_assertion_provider(),
        scope=auth.scope,
        issuer=issuer,
    )


def _private_key(auth: AuthConfig) -> str:
    if auth.private_key:
        return expand(auth.private_key)
    return Path(expand(auth.private_key_file or "")).expanduser().read_text()


def fetch_id_jag(
    token_endpoint: str,
    *,
    id_token: str,
    client_id: str | None = None,
    client_secret: str | None = None,
    timeout: float = 30.0,
    network: NetworkPolicy | None = None,
    server: str = "",
) -> Callable[[str, str], Awaitable[str]]:
    """An assertion provider that exchanges ``id_token`` for an ID-JAG at the identity provider.

    The SDK calls it with the authorization server's issuer (the ID-JAG's audience) and the
    MCP server's resource identifier, before each token request. The connection goes only to
    an address ``network`` judged (default: any but cloud metadata), like every other one.
    ``timeout`` is the exchange's total deadline; its answer may hold at most
    :data:`AUTH_MAX_BYTES` decoded bytes.

    Raises:
        PermissionError: The identity provider refused the exchange (its error is quoted), or
            its answer was larger than the cap.
        TimeoutError: It did not answer in full within ``timeout``.
    """

    async def provide(audience: str, resource: str) -> str:
        form: dict[str, Any] = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": _ID_JAG,
            "subject_token": id_token,
            "subject_token_type": _ID_TOKEN,
            "audience": audience,
            "resource": resource,
        }
        headers: dict[str, str] = {}
        policy = network or NetworkPolicy()
        if client_id and client_secret:
            headers["Authorization"] = _basic(client_id, client_secret)
        elif client_id:
            form["client_id"] = client_id
        pinned = pinned_transport(policy, server=server or "identity provider")
        try:
            with anyio.fail_after(timeout):
                async with httpx2.AsyncClient(
                    timeout=timeout,
                    follow_redirects=False,
                    trust_env=False,
                    transport=BoundedTransport(pinned, AUTH_MAX_BYTES),
                ) as http:
                    response = await http.post(token_endpoint, data=form, headers=headers)
        except AnswerTooLargeError:
            raise PermissionError(
                f"the identity provider at {token_endpoint} answered the token exchange with "
                f"more than {AUTH_MAX_BYTES} bytes; a token response is a few KB, so check "
                "'idp_token_endpoint' in the server's auth config"
            ) from None
        except TimeoutError:
            raise TimeoutError(
                f"the identity provider at {token_endpoint} did not answer the token exchange "
                f"within {timeout:g} s"
            ) from None
        body = _json(response)
        token = body.get("access_token")
        if response.status_code != 200 or not isinstance(token, str) or not token:
            said = body.get("error_description") or body.get("error") or response.text[:200]
            raise PermissionError(
                f"the identity provider at {token_endpoint} refused to exchange the ID token "
                f"for an identity assertion grant (HTTP {response.status_code}: {said}); "
                "check 'id_token' and 'idp_client_id' in the server's auth config"
            )
        return token

    return provide


def _basic(client_id: str, client_secret: str) -> str:
    # RFC 6749 §2.3.1: both parts form-encoded before the Basic encoding.
    pair = f"{quote_plus(client_id)}:{quote_plus(client_secret)}".encode()
    return "Basic " + base64.b64encode(pair).decode()


def _json(response: httpx2.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
