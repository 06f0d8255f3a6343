"""The SDK transport's header checks of a POST, worked out once per distinct set of headers.

Before answering a request itself, the direct path (:mod:`._direct`) runs the checks the SDK's
transport runs: ``Content-Type`` is JSON, ``Host`` and ``Origin`` are allowed (DNS-rebinding
protection), ``Accept`` takes JSON. Their verdict depends only on those four header values and
the server's settings (fixed when the app is built), and a client sends the same values with
every request, so the verdict is kept per combination (a bounded map, forgotten all at once past
its size). The checks themselves are the SDK's own (``TransportSecurityMiddleware.
validate_request`` and ``check_accept_headers``), run on the first sight of a combination.
"""

from __future__ import annotations

from typing import Any, cast

from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_NAME_HEADER, MCP_PROTOCOL_VERSION_HEADER
from starlette.requests import Request

__all__ = ["HeaderView", "TransportChecks"]

_ROUTING_HEADERS = frozenset(
    h.lower() for h in (MCP_PROTOCOL_VERSION_HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER)
)
#: Header combinations whose verdict is kept.
_LIMIT = 256
#: Combinations longer than this (in characters) are checked each time, not kept.
_MAX_KEY = 2048


class HeaderView(dict[str, str]):
    """A request's headers read once: the first value of each name, as Starlette's
    ``Headers.get`` reads them; ``duplicated`` when a routing header comes twice (the SDK's
    ``HEADER_MISMATCH``)."""

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        super().__init__()
        self.duplicated = False
        for name, value in raw:
            key = name.decode("latin-1")
            if key not in self:
                self[key] = value.decode("latin-1")
            elif key in _ROUTING_HEADERS:
                self.duplicated = True

    @property
    def headers(self) -> _Folded:
        """For the SDK's header checks, which read ``request.headers`` and nothing else."""
        return _Folded(self)


class _Folded:
    """``headers.get`` with the name lowercased, as Starlette's ``Headers.get`` does."""

    __slots__ = ("_headers",)

    def __init__(self, headers: dict[str, str]) -> None:
        self._headers = headers

    def get(self, key: str, default: Any = None) -> Any:
        return self._headers.get(key.lower(), default)


class TransportChecks:
    """Whether a POST passes the SDK transport's header checks and asks for a JSON answer.

    Args:
        security: The transport's security check (built from the same settings as the SDK's).
    """

    def __init__(self, security: TransportSecurityMiddleware) -> None:
        self._security = security
        self._verdicts: dict[tuple[str | None, ...], bool] = {}

    async def passed(self, headers: HeaderView) -> bool:
        """The verdict for these headers (``False``: the SDK's transport answers the request)."""
        get = headers.get
        key = (get("content-type"), get("host"), get("origin"), get("accept"))
        verdict = self._verdicts.get(key)
        if verdict is None:
            view = cast(Request, headers)
            verdict = (
                await self._security.validate_request(view, is_post=True) is None
                and check_accept_headers(view)[0]
                and _json_content(key[0] or "")
            )
            if sum(len(part or "") for part in key) > _MAX_KEY:
                return verdict
            if len(self._verdicts) >= _LIMIT:
                self._verdicts.clear()
            self._verdicts[key] = verdict
        return verdict


def _json_content(content_type: str) -> bool:
    return any(part.strip() == "application/json" for part in content_type.split(";")[0].split(","))
