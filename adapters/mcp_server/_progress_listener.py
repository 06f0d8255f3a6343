"""Whether the caller of a request listens for its progress.

The SDK gives every tool call a ``report_progress`` that does nothing when the caller gave no
``progressToken``. A tool's context gets a progress listener only when there is one, so a
gateway asks its remote server for progress only for a caller that reads it (a token makes the
remote report, and the gateway relay, work nobody uses).
"""

from __future__ import annotations

from typing import Any

from mcp.server import ServerRequestContext
from mcp_types import CallToolRequestParams

__all__ = ["asks_progress"]

#: Where the SDK's request contexts keep the caller's progress token (JSON-RPC, 2026-07-28
#: HTTP) or, in process, its callback. None of them is public; an SDK that keeps it elsewhere
#: gets every call's progress forwarded, as before.
_LISTENER_FIELDS = ("_progress_token", "progress_token", "_on_progress")


def asks_progress(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> bool:
    """Whether the request's caller listens for progress (it gave a ``progressToken``)."""
    meta: Any = params.meta
    if meta is not None and meta.get("progress_token") is not None:
        return True
    outbound: Any = getattr(ctx.session, "_request_outbound", None)
    while hasattr(outbound, "_inner"):  # the 2026-07-28 loop's wrapper around the context
        outbound = outbound._inner
    for name in _LISTENER_FIELDS:
        if hasattr(outbound, name):
            return getattr(outbound, name) is not None
    return True
