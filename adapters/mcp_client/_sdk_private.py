"""The MCP SDK's private names this adapter relies on, imported in this one place.

``mcp.client._transport`` is not public API; when an SDK release moves it, only this module
changes. The same holds for :func:`send_unchecked`, which reaches into the client session.
"""

from typing import Any

from mcp import ClientSession
from mcp.client._transport import TransportStreams
from mcp.shared.dispatcher import CallOptions
from mcp_types import Request

__all__ = ["TransportStreams", "send_unchecked"]


async def send_unchecked(
    session: ClientSession, request: Request[Any, Any], timeout: float | None
) -> dict[str, Any]:
    """Send ``request`` and return the raw result, without the SDK's per-method result check.

    A task-creating ``tools/call`` (2025-11-25) is answered with a ``CreateTaskResult``, which
    the SDK's check, knowing only ``CallToolResult`` for ``tools/call``, would refuse.
    """
    data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: CallOptions = {}
    session._stamp(data, opts)  # the version envelope, as send_request adds it
    if timeout is not None:
        opts["timeout"] = timeout
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), opts)
