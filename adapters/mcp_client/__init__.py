"""Remote MCP tools next to local ones.

List servers in a config file (the ``{"mcpServers": ...}`` format of Claude Desktop, Cursor
and VS Code), open a :class:`McpClientPool`, and put the servers' tools in a
:class:`toolkit.ToolRegistry` with :meth:`McpClientPool.register_into`: they get the same
validation, error messages, records and adapters as decorated functions.
"""

from adapters.mcp_client._config import AuthConfig, McpConfigError, McpServerConfig, load_mcp_config
from adapters.mcp_client._network import NetworkPolicy, NetworkPolicyError
from adapters.mcp_client._pool import McpClientPool, ServerStatus
from adapters.mcp_client._remote_tool import RemoteTool, sanitize_name

__all__ = [
    "AuthConfig",
    "McpClientPool",
    "McpConfigError",
    "McpServerConfig",
    "NetworkPolicy",
    "NetworkPolicyError",
    "RemoteTool",
    "ServerStatus",
    "load_mcp_config",
    "sanitize_name",
]
