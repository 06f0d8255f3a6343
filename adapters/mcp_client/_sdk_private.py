"""The MCP SDK's private names this adapter relies on, imported in this one place.

``mcp.client._transport`` is not public API; when an SDK release moves it, only this module
changes.
"""

from mcp.client._transport import TransportStreams

__all__ = ["TransportStreams"]
