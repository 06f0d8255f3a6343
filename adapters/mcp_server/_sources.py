"""What a served registry holds besides the target's functions: HTTP tools and remote servers.

One place for ``toolkit serve`` (one process) and :func:`create_app` (any number of workers):
:func:`add_http_tools` registers HTTP endpoint tools from ``--http-tools`` and a config's
``httpTools`` section at once; :func:`serving_sources` keeps them open, and the config's remote
MCP servers connected, while the server runs.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from toolkit.registry import ToolRegistry

__all__ = ["add_http_tools", "serving_sources"]

log = logging.getLogger("toolkit.server")


def add_http_tools(
    registry: ToolRegistry, http_tools: str | Path | None, config: str | Path | None
) -> tuple[list[Any], bool]:
    """Register HTTP tools from ``http_tools`` and the ``httpTools`` section of ``config``.

    Returns:
        The toolsets (to close when serving ends) and whether ``config`` also lists MCP servers.

    Raises:
        ValueError: A file is missing or invalid (the message names the tool, field and fix).
    """
    if http_tools is None and config is None:
        return [], False
    from adapters.http import HttpConfigError, HttpToolset, load_http_file

    toolsets = []
    has_servers = config is not None
    try:
        if http_tools is not None:
            toolsets.append(HttpToolset.from_file(http_tools))
        if config is not None:
            data = load_http_file(config, require=False)
            has_servers = "mcpServers" in data or "servers" in data or "httpTools" not in data
            if "httpTools" in data:
                toolsets.append(HttpToolset.from_config(data, source=str(config)))
    except HttpConfigError as exc:
        raise ValueError(str(exc)) from None
    for toolset in toolsets:
        toolset.register_into(registry)
        log.info("added %d HTTP tools", len(toolset.tools))
    return toolsets, has_servers


@asynccontextmanager
async def serving_sources(
    registry: ToolRegistry, toolsets: Sequence[Any], config: str | Path | None
) -> AsyncIterator[list[str]]:
    """Keep ``toolsets`` open and the remote servers of ``config`` in ``registry`` meanwhile.

    Yields:
        The names of the remote tools added (empty without remote servers).
    """
    async with AsyncExitStack() as stack:
        for toolset in toolsets:
            stack.push_async_callback(toolset.aclose)
        remote: list[str] = []
        if config is not None:
            from adapters.mcp_server._gateway import remote_tools

            remote = await stack.enter_async_context(remote_tools(registry, config))
        yield remote
