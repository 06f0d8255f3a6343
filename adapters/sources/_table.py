"""THE table of tool sources a command line or a config names, one row per source.

Each row says what it reads, how to check it without connecting, and how to open it as a
toolset. ``toolkit serve`` (one process or many workers) and :func:`create_app` go through
this table, so a new kind of source is a new :class:`~toolkit.Toolset` plus one row here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from toolkit.registry import ToolRegistry
from toolkit.toolsets.loader import load_registry
from toolkit.toolsets.toolset import OnClash, Toolset

if TYPE_CHECKING:
    from adapters.http import HttpToolset
    from adapters.mcp_client import ServerToolset

__all__ = ["SOURCES", "Source", "Sources"]

Setting = Literal["target", "http_tools", "config"]


@dataclass(frozen=True)
class Sources:
    """What a command line (or a ``TOOLKIT_*`` environment) names as tools to serve.

    Attributes:
        target: TARGET: a module, package, ``module:attribute`` or ``.py`` file.
        http_tools: ``--http-tools FILE``: a file of HTTP endpoint tools.
        config: ``--config FILE``: an MCP config; its ``mcpServers`` and ``httpTools``.
    """

    target: str | None = None
    http_tools: str | None = None
    config: str | None = None

    def __bool__(self) -> bool:
        return any((self.target, self.http_tools, self.config))


class Source(NamedTuple):
    """One row of :data:`SOURCES`.

    Attributes:
        name: The source as a person names it (``"--config mcpServers"``).
        flag: The command-line flag (or argument) that names it (``"--config"``); the
            server's settings take their flag for ``setting`` from here.
        setting: The field of :class:`Sources` holding its file or name.
        reads: What it reads, for help and messages.
        check: Reads it as opening would, without connecting; raises ``ValueError`` (or
            ``RegistrationError``) naming the file, the field and the fix.
        open: Opens it as toolsets for the block (none: the file has no such section). The
            TARGET row has no ``open``: it is the registry the other sources join.
        on_clash: What ``registry.add_toolset`` does with a name already taken.
        catalog: Adds what else an opened toolset serves (resources, prompts).
    """

    name: str
    flag: str
    setting: Setting
    reads: str
    check: Callable[[str], None]
    open: Callable[[str], AbstractAsyncContextManager[list[Toolset]]] | None = None
    on_clash: OnClash = "refuse"
    catalog: Callable[[Any, ToolRegistry], Awaitable[None]] | None = None


@contextmanager
def _as_value_error() -> Iterator[None]:
    """A config mistake as the ``ValueError`` every front end prints (message unchanged)."""
    from adapters.http import HttpConfigError

    try:
        yield
    except HttpConfigError as exc:
        raise ValueError(str(exc)) from None


def _config_data(config: str) -> dict[str, Any]:
    from adapters.http import load_http_file

    with _as_value_error():
        return load_http_file(config, require=False)


def _has_servers(data: dict[str, Any]) -> bool:
    # A config of HTTP tools alone starts no client pool; any other config is an MCP config.
    return "mcpServers" in data or "servers" in data or "httpTools" not in data


def _check_target(target: str) -> None:
    load_registry(target)


def _http_file(path: str) -> HttpToolset:
    from adapters.http import HttpToolset

    with _as_value_error():
        return HttpToolset.from_file(path)


def _http_section(config: str) -> HttpToolset | None:
    from adapters.http import HttpToolset

    data = _config_data(config)
    if "httpTools" not in data:
        return None
    with _as_value_error():
        return HttpToolset.from_config(data, source=config)


def _check_http(build: Callable[[str], HttpToolset | None]) -> Callable[[str], None]:
    def check(value: str) -> None:
        toolset = build(value)
        if toolset is not None:
            toolset.close()

    return check


def _open_http(
    build: Callable[[str], HttpToolset | None],
) -> Callable[[str], AbstractAsyncContextManager[list[Toolset]]]:
    @asynccontextmanager
    async def opened(value: str) -> AsyncIterator[list[Toolset]]:
        toolset = build(value)
        if toolset is None:
            yield []
            return
        async with toolset:
            yield [toolset]

    return opened


def _check_servers(config: str) -> None:
    if not _has_servers(_config_data(config)):
        return
    from adapters.mcp_client import McpConfigError, load_mcp_config

    try:
        load_mcp_config(config)
    except McpConfigError as exc:
        raise ValueError(str(exc)) from None


@asynccontextmanager
async def _open_servers(config: str) -> AsyncIterator[list[Toolset]]:
    """The config's remote servers in one pool, each server a toolset of its tools under its
    prefix (so a server none of whose tools could be added is refused, as before)."""
    if not _has_servers(_config_data(config)):
        yield []
        return
    from adapters.mcp_client import AskInCaller, McpClientPool, ServerToolset

    # A remote server's question, or its request for sampling, goes to the client whose call
    # caused it; that client answers or refuses.
    asker = AskInCaller()
    # Given as the file, the pool checks tools against the lock beside it (docs/trust.md).
    async with McpClientPool(config, elicitation=asker, sampling=asker.sample) as pool:
        yield [ServerToolset(pool, server) for server in pool.servers]


async def _server_catalog(toolset: ServerToolset, registry: ToolRegistry) -> None:
    """The server's resources and prompts, under the same namespace as its tools."""
    from adapters.mcp_client import register_catalog

    pool, server = toolset.pool, toolset.server
    await register_catalog(pool, registry, server, pool.config(server).tool_prefix)


#: Every source a command line or a config names, in the order they join the registry.
SOURCES: tuple[Source, ...] = (
    Source(
        "TARGET",
        "TARGET",
        "target",
        "a module, package, module:attribute or .py file: its @mcp_tool functions, or the "
        "ToolRegistry it names (served with its own policy, resources and prompts)",
        _check_target,
    ),
    Source(
        "--http-tools",
        "--http-tools",
        "http_tools",
        "a YAML or JSON file of HTTP endpoint tools ('httpTools', 'openapi')",
        _check_http(_http_file),
        _open_http(_http_file),
    ),
    Source(
        "--config httpTools",
        "--config",
        "config",
        "the 'httpTools' section of an MCP config file",
        _check_http(_http_section),
        _open_http(_http_section),
    ),
    Source(
        "--config mcpServers",
        "--config",
        "config",
        "the remote MCP servers of a config file, each tool named <server>_<tool> (or the "
        "server's 'prefix'); a name already taken is skipped with a warning",
        _check_servers,
        _open_servers,
        on_clash="skip",
        catalog=_server_catalog,
    ),
)
