"""``tools/list`` pages and their opaque cursors.

A cursor names a position in one version of the tool list (a fingerprint of the names, so
every replica serving the same registry agrees). A cursor from another version of the list,
or one that was never issued, is refused with ``INVALID_PARAMS`` as the spec asks.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

__all__ = ["ToolListing"]


@dataclass(frozen=True, slots=True)
class ToolListing:
    """One version of the tool list, ready to be served page by page.

    Attributes:
        entries: ``tools/list`` entries in registry order (a stable order helps prompt caches).
        page_size: Tools per page; ``None`` serves every tool in one page.
        fingerprint: Identifies this version of the list inside cursors.
    """

    entries: Sequence[dict[str, Any]]
    page_size: int | None
    fingerprint: str

    @classmethod
    def build(cls, entries: Sequence[dict[str, Any]], page_size: int | None) -> ToolListing:
        """A listing of ``entries``, fingerprinted by their names."""
        digest = hashlib.sha256("\n".join(e["name"] for e in entries).encode()).hexdigest()[:12]
        return cls(entries=entries, page_size=page_size, fingerprint=digest)

    def page(self, cursor: str | None) -> dict[str, Any]:
        """The ``ListToolsResult`` body for ``cursor`` (``None``: the first page)."""
        start = 0 if cursor is None else self._offset(cursor)
        end = len(self.entries) if self.page_size is None else start + self.page_size
        # 2026-07-28 requires the caching fields; ttl 0 keeps clients listing fresh.
        body: dict[str, Any] = {
            "tools": list(self.entries[start:end]),
            "ttlMs": 0,
            "cacheScope": "private",
            "resultType": "complete",
        }
        if end < len(self.entries):
            body["nextCursor"] = self._cursor(end)
        return body

    def _cursor(self, offset: int) -> str:
        return base64.urlsafe_b64encode(f"{self.fingerprint}:{offset}".encode()).decode()

    def _offset(self, cursor: str) -> int:
        try:
            fingerprint, _, raw = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
            offset = int(raw)
        except (ValueError, UnicodeDecodeError):
            raise MCPError(
                INVALID_PARAMS,
                "Invalid cursor: pass back a nextCursor from a previous tools/list, or none "
                "for the first page.",
            ) from None
        if fingerprint != self.fingerprint or not 0 < offset <= len(self.entries):
            raise MCPError(
                INVALID_PARAMS,
                "Stale cursor: the tool list changed since it was issued. "
                "List again from the first page.",
            )
        return offset
