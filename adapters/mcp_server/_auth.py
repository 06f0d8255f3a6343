"""Bearer-token guards for the HTTP transport (ASGI middleware): one token, or a callers map."""

from __future__ import annotations

import hmac
import json
import os

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from adapters.mcp_server._callers import CallerMap

__all__ = ["BearerGuard", "CallerGuard", "token_from_env"]

_TOKEN_HINT = "with the token this server was started with."
_CALLERS_HINT = "with a token listed in this server's callers file."


def token_from_env(variable: str) -> str:
    """The bearer token held in environment variable ``variable``.

    Raises:
        ValueError: The variable is unset or empty (serving without the token the operator
            asked for would be an open server).
    """
    token = os.environ.get(variable, "")
    if not token.strip():
        raise ValueError(
            f"Environment variable {variable} is unset or empty, so the server has no bearer "
            f"token to check. Set it (e.g. export {variable}=$(openssl rand -hex 32)) or drop "
            "the token option to serve without authentication on 127.0.0.1."
        )
    return token.strip()


class BearerGuard:
    """Refuse HTTP requests without ``Authorization: Bearer <token>`` (401).

    The comparison takes constant time (:func:`hmac.compare_digest`). Paths in ``open_paths``
    (the health check) stay reachable without a token.

    Args:
        app: The application to guard.
        token: The expected token.
        open_paths: Paths served without a token.
    """

    def __init__(self, app: ASGIApp, token: str, open_paths: frozenset[str] = frozenset()) -> None:
        self.app = app
        self._token = token.encode()
        self._open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self._open_paths:
            await self.app(scope, receive, send)
            return
        scheme, _, presented = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            presented.strip().encode(), self._token
        ):
            await self.app(scope, receive, send)
            return
        reason = "Invalid bearer token" if presented else "Missing bearer token"
        await _unauthorized(reason, _TOKEN_HINT, send)


class CallerGuard:
    """Refuse HTTP requests whose bearer token names no known caller (401), ``initialize``
    included; tag the others with their caller.

    Rule: with a callers map every method needs a caller's token, the handshake too. The caller
    becomes the request's authenticated user (``scope["user"]``), so the SDK binds each
    stateful session to the caller that opened it: the session's id presented with another
    caller's token is answered 404, as an unknown session, and its streams resume for no one
    else (see :mod:`._events`).

    Args:
        app: The application to guard.
        callers: Tokens and their callers.
        open_paths: Paths served without a token (the health check).
    """

    def __init__(
        self, app: ASGIApp, callers: CallerMap, open_paths: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        self._callers = callers
        self._open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self._open_paths:
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("authorization")
        caller = self._callers.identify(header)
        if caller is None:
            reason = "Unknown bearer token" if header else "Missing bearer token"
            await _unauthorized(reason, _CALLERS_HINT, send)
            return
        # The token field keeps the caller's name, never the secret itself.
        token = AccessToken(token=caller.name, client_id=caller.name, scopes=list(caller.scopes))
        await self.app({**scope, "user": AuthenticatedUser(token)}, receive, send)


async def _unauthorized(reason: str, hint: str, send: Send) -> None:
    body = json.dumps(
        {
            "error": "invalid_token",
            "error_description": f"{reason}: send the header 'Authorization: Bearer <token>' "
            + hint,
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer error="invalid_token"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
