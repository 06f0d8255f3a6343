"""Gateway: serve the tools of configured remote MCP servers next to local ones.

Remote tools enter the same registry as local ones, so one policy, one exception processor
and one audit trail cover both. The client pool is imported here only, and only when a config
is given: serving local tools never needs it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from toolkit.registry import ToolRegistry

__all__ = ["check_config", "remote_tools"]


@asynccontextmanager
async def remote_tools(registry: ToolRegistry, config: str | Path) -> AsyncIterator[list[str]]:
    """Add the tools of every server in ``config`` to ``registry`` while the block runs.

    Each remote tool is named ``<server>_<tool>`` (or the server's configured prefix); when a
    server changes its list, the registry follows and our clients hear ``list_changed``. Remote
    prompts are named the same way; remote resources are served as ``<server>+<uri>``.

    Yields:
        The names of the remote tools added.

    Raises:
        adapters.mcp_client.McpConfigError: The config file is invalid.
        toolkit.RegistrationError: A remote tool's name collides with a local one.
    """
    from adapters.mcp_client import (
        AskInCaller,
        McpClientPool,
        load_mcp_config,
        register_catalog,
    )

    # A remote server's question, or its request for sampling, goes to the client whose call
    # caused it; that client answers or refuses.
    asker = AskInCaller()
    servers = load_mcp_config(config)
    async with McpClientPool(servers, elicitation=asker, sampling=asker.sample) as pool:
        added = await pool.register_into(registry)
        for server in pool.servers:  # their resources and prompts, under the same namespaces
            await register_catalog(pool, registry, server, pool.config(server).tool_prefix)
        yield [tool.name for tool in added]


def check_config(config: str | Path) -> None:
    """Read ``config`` as the gateway would, without connecting.

    Raises:
        ValueError: The config is invalid (the message names the server, field and fix).
    """
    from adapters.mcp_client import McpConfigError, load_mcp_config

    try:
        load_mcp_config(config)
    except McpConfigError as exc:
        raise ValueError(str(exc)) from None
