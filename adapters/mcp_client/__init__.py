"""Remote MCP tools next to local ones.

List servers in a config file (the ``{"mcpServers": ...}`` format of Claude Desktop, Cursor
and VS Code), open a :class:`McpClientPool`, and put the servers' tools in a
:class:`toolkit.ToolRegistry` with :meth:`McpClientPool.register_into`: they get the same
validation, error messages, records and adapters as decorated functions::

    async with McpClientPool("mcp.json") as pool:  # async code
        await pool.register_into(registry)
        result = await registry.call("github_search_issues", {"query": "bug"})

    with McpClientPool("mcp.json") as pool:  # sync code (or pool.start() ... pool.close())
        pool.register_into_sync(registry)
        result = registry.call_sync("github_search_issues", {"query": "bug"})

A pool's connections live on the event loop where it was opened (``with`` / ``start()``: the
toolkit's background loop, the one ``registry.call_sync`` and LangChain's sync ``invoke`` use).
Its tools can still be called from any other loop or thread: such calls are forwarded to the
pool's loop without blocking the caller's, come back with the same results and error codes,
and are cancelled when the caller is cancelled or times out. The one thing that cannot work is
blocking the pool's own loop while waiting for it (``call_sync`` in a notebook cell when the
pool was opened with ``async with`` in the kernel's loop): that call answers ``UNREACHABLE``
with the fix instead of hanging.
"""

from adapters._extras import require

require("adapters.mcp_client", "mcp")

from adapters.mcp_client._asking import AskInCaller, Question
from adapters.mcp_client._config import AuthConfig, McpConfigError, McpServerConfig, load_mcp_config
from adapters.mcp_client._handlers import ElicitationHandler, SamplingHandler, with_defaults
from adapters.mcp_client._lock import ToolLock
from adapters.mcp_client._oauth import (
    FileTokenStorage,
    OAuthFlow,
    browser_flow,
    headless_flow,
    token_path,
)
from adapters.mcp_client._pool import McpClientPool, ServerStatus
from adapters.mcp_client._remote_catalog import register_catalog
from adapters.mcp_client._remote_tool import RemoteTool, sanitize_name
from adapters.mcp_client._review import ToolChange, review_tools, trust_tools
from adapters.mcp_client._server_toolset import ServerToolset
from adapters.mcp_client._tasks import (
    cancel_task,
    create_task,
    get_task,
    list_tasks,
    task_result,
)
from adapters.mcp_client._trust import Held, TrustGate
from adapters.network import NetworkPolicy, NetworkPolicyError

__all__ = [
    "AskInCaller",
    "AuthConfig",
    "ElicitationHandler",
    "FileTokenStorage",
    "Held",
    "McpClientPool",
    "McpConfigError",
    "McpServerConfig",
    "NetworkPolicy",
    "NetworkPolicyError",
    "OAuthFlow",
    "Question",
    "RemoteTool",
    "SamplingHandler",
    "ServerStatus",
    "ServerToolset",
    "ToolChange",
    "ToolLock",
    "TrustGate",
    "browser_flow",
    "cancel_task",
    "create_task",
    "get_task",
    "headless_flow",
    "list_tasks",
    "load_mcp_config",
    "register_catalog",
    "review_tools",
    "sanitize_name",
    "task_result",
    "token_path",
    "trust_tools",
    "with_defaults",
]
