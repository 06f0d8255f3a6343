"""The MCP wire format shared by the MCP client and the MCP server adapters.

``adapters.mcp_client`` and ``adapters.mcp_server`` never import each other (an import-linter
contract); the format both speak lives here, in the layer below both: a toolkit result as an
MCP ``tools/call`` result and back.
"""

from adapters._extras import require

require("adapters.mcp_wire", "mcp")

from adapters.mcp_wire._results import (
    ERROR_META_KEY,
    call_result,
    content_block,
    mcp_block,
    mcp_content,
    remote_error,
    to_tool_result,
)

__all__ = [
    "ERROR_META_KEY",
    "call_result",
    "content_block",
    "mcp_block",
    "mcp_content",
    "remote_error",
    "to_tool_result",
]
