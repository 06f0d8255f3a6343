"""Serve a :class:`~toolkit.ToolRegistry` as an MCP server, over stdio or streamable HTTP.

Example:
    >>> from adapters.mcp_server import build_server, run_stdio
    >>> server = build_server(registry, name="warehouse")  # doctest: +SKIP
    >>> run_stdio(server)  # doctest: +SKIP

From the command line: ``toolkit serve myapp.tools`` (stdio) or
``toolkit serve myapp.tools --transport http --token-env MCP_TOKEN``.
"""

from adapters._extras import require

require("adapters.mcp_server", "mcp")

from adapters.mcp_server._approval import ElicitingApprover
from adapters.mcp_server._auth import BearerGuard, token_from_env
from adapters.mcp_server._callers import Caller, CallerMap, load_callers
from adapters.mcp_server._channel import SessionChannel
from adapters.mcp_server._events import BoundedEventStore
from adapters.mcp_server._factory import create_app
from adapters.mcp_server._http import DEFAULT_MAX_BODY_BYTES, http_app, serve_http
from adapters.mcp_server._serve import serve_command
from adapters.mcp_server._server import RegistryServer, build_server
from adapters.mcp_server._settings import ServeSettings
from adapters.mcp_server._stdio import run_stdio, serve_stdio
from adapters.mcp_server._timeouts import BoundedHttpProtocol
from adapters.mcp_wire import ERROR_META_KEY

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "ERROR_META_KEY",
    "BearerGuard",
    "BoundedEventStore",
    "BoundedHttpProtocol",
    "Caller",
    "CallerMap",
    "ElicitingApprover",
    "RegistryServer",
    "ServeSettings",
    "SessionChannel",
    "build_server",
    "create_app",
    "http_app",
    "load_callers",
    "run_stdio",
    "serve_command",
    "serve_http",
    "serve_stdio",
    "token_from_env",
]
