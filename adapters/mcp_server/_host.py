"""``Host`` and ``Origin`` checked case-insensitively, on every path (``/healthz`` too).

Design rule: host names are case-insensitive (RFC 9110), so ``LOCALHOST:8000`` is the same
host as ``localhost:8000`` and is neither refused nor let through by a spelling trick. Both
headers are lowercased before any check, and the health endpoint, which the MCP transport's
own check does not cover, is checked here against the same allowed hosts (421 otherwise).
"""

from __future__ import annotations

import json

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostCheck", "host_allowed"]

_LOWERED = (b"host", b"origin")


def host_allowed(host: str, allowed: list[str]) -> bool:
    """Whether ``host`` (lowercased) matches ``allowed`` (``name`` or ``name:*`` patterns)."""
    host = host.lower()
    for pattern in allowed:
        pattern = pattern.lower()
        if host == pattern or (pattern.endswith(":*") and host.startswith(pattern[:-1])):
            return True
    return False


class HostCheck:
    """ASGI middleware: lowercase ``Host``/``Origin``; check ``Host`` on ``open_paths``.

    Args:
        app: The application.
        security: The transport's settings (the allowed hosts).
        open_paths: Paths outside the MCP transport that still need the check.
    """

    def __init__(
        self, app: ASGIApp, security: TransportSecuritySettings, open_paths: frozenset[str]
    ) -> None:
        self.app = app
        self._security = security
        self._open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        if any(name in _LOWERED and value != value.lower() for name, value in headers):
            headers = [
                (name, value.lower() if name in _LOWERED else value) for name, value in headers
            ]
            scope = {**scope, "headers": headers}
        if scope["path"] in self._open_paths and self._security.enable_dns_rebinding_protection:
            host = next((v.decode("latin-1") for n, v in headers if n == b"host"), "")
            if not host_allowed(host, self._security.allowed_hosts):
                await _misdirected(send)
                return
        await self.app(scope, receive, send)


async def _misdirected(send: Send) -> None:
    body = json.dumps(
        {"error": "Invalid Host header: this host name is not among the server's allowed hosts"}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 421, "headers": headers})
    await send({"type": "http.response.body", "body": body})
