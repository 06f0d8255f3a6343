"""Long-lived connections to many MCP servers: :class:`McpClientPool`.

Design rule: a server's tool list can never take the pool down. A tool whose name does not
fit, or clashes with another tool (at the first registration as on a refresh), is skipped
with a warning naming it and the fix; the server's other tools stay. A refresh is all-or-nothing per server and per tool: the new list
is fetched completely before the registry changes, a failed fetch keeps the old tools, and
each tool is swapped in one step. A refresh still pending when the pool closes ends quietly.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
from anyio.from_thread import BlockingPortal

from adapters.mcp_client._catalog import Catalog
from adapters.mcp_client._config import McpServerConfig, ServersArg, selected, servers_from
from adapters.mcp_client._connection import Connection, ConnectionState
from adapters.mcp_client._handlers import ClientHandlers, ElicitationHandler, SamplingHandler
from adapters.mcp_client._home import HomeLoop
from adapters.mcp_client._lock import ToolLock, lock_beside
from adapters.mcp_client._oauth import OAuthFlow
from adapters.mcp_client._remote_tool import RemoteTool
from adapters.mcp_client._status import ServerStatus, status_table
from adapters.mcp_client._trust import TrustGate
from adapters.network import NetworkPolicy
from toolkit.calls.runtime import get_portal
from toolkit.calls.spec import is_valid_name
from toolkit.context import ToolContext
from toolkit.errors import RegistrationError, ToolError
from toolkit.registry import ToolRegistry
from toolkit.result import ToolResult
from toolkit.tool import Tool
from toolkit.toolsets.toolset import BaseToolset
from toolkit.views import html_safe

__all__ = ["McpClientPool", "ServerStatus"]

_DEFAULT = object()

logger = logging.getLogger("adapters.mcp_client")


class McpClientPool(BaseToolset, Catalog):
    """One long-lived connection per MCP server, shared by every call.

    Use it as an async context manager; connections open lazily on first use, each owned by
    its own task, and close (stdio servers shut down, bounded) when the block ends::

        async with McpClientPool("mcp.json") as pool:
            await pool.register_into(registry)
            result = await registry.call("github_search_issues", {"query": "bug"})

    Sync applications use ``with`` (or :meth:`start` / :meth:`close`): the pool then lives on
    the toolkit's background loop, the one ``registry.call_sync`` and LangChain's ``invoke``
    use::

        with McpClientPool("mcp.json") as pool:
            pool.register_into_sync(registry)
            result = registry.call_sync("github_search_issues", {"query": "bug"})

    Either way its tools can be called from any event loop or thread: calls made away from
    the pool's loop are forwarded to it, and cancelling the caller cancels the call.

    The pool is a :class:`toolkit.Toolset` of every server's tools (each under its server's
    prefix), so ``await registry.add_toolset(pool.filtered(...).pinned(...))`` works too.

    Args:
        servers: A config file path, a ``{"mcpServers": ...}``-style mapping of name to config
            (or to a plain dict), or an iterable of :class:`McpServerConfig`.
        network: Policy for HTTP targets of trusted configs (untrusted ones always get
            :meth:`NetworkPolicy.untrusted`).
        grace: Seconds a stdio server gets to exit at each shutdown step (stdin closed,
            SIGTERM) before the next (SIGKILL to its process group).
        elicitation: Answers servers' ``elicitation/create``: ``async (server, message,
            schema) -> Elicitation``. Without it, servers are told the client cannot ask.
        sampling: Answers servers' ``sampling/createMessage``: a LangChain chat model, or
            ``async (server, messages, system_prompt, max_tokens) -> str``.
        oauth_flow: How the user logs in to servers with ``"auth": {"type": "oauth"}``
            (default: :func:`browser_flow`); tokens are kept per server, mode 0600.
        lock: The lock of trusted tool definitions (docs/trust.md): a file, or a
            :class:`ToolLock`. Default: ``mcp.lock.json`` beside a config file given as
            ``servers`` (``<stem>.lock.json``), else a lock in memory.
    """

    def __init__(
        self,
        servers: ServersArg,
        *,
        network: NetworkPolicy | None = None,
        grace: float = 2.0,
        elicitation: ElicitationHandler | None = None,
        sampling: SamplingHandler | None = None,
        oauth_flow: OAuthFlow | None = None,
        lock: str | Path | ToolLock | None = None,
    ) -> None:
        self._configs = servers_from(servers)
        file = servers if isinstance(servers, str | Path) else None
        if not isinstance(lock, ToolLock):
            lock = ToolLock(lock if lock is not None else file and lock_beside(file))
        #: Checks every listing against the lock; holds what is not trusted.
        self.trust = TrustGate(lock, self._configs, config_file=str(file or "CONFIG"))
        self._handlers = ClientHandlers(
            elicitation=elicitation, sampling=sampling, oauth_flow=oauth_flow
        )
        self._network = network or NetworkPolicy()
        self._grace = grace
        self._connections: dict[tuple[Any, ...], Connection] = {}
        self._by_name: dict[str, Connection] = {}
        self._bindings: list[tuple[ToolRegistry, str, str]] = []  # registry, server, prefix
        self._registered: dict[tuple[int, str], list[str]] = {}
        self._latency: dict[str, float] = {}
        self._tg: anyio.abc.TaskGroup | None = None
        self._portal: BlockingPortal | None = None
        self._home: HomeLoop | None = None
        self._sync_cm: contextlib.AbstractContextManager[McpClientPool] | None = None

    # -- lifecycle -------------------------------------------------------------------------

    async def __aenter__(self) -> McpClientPool:
        if self._tg is not None:
            raise RuntimeError("McpClientPool is already open; open each pool once at a time.")
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._portal = BlockingPortal()
        await self._portal.__aenter__()
        self._home = HomeLoop(self._portal, "McpClientPool")
        self._connections, self._by_name = {}, {}
        for name, config in self._configs.items():
            key = config.identity()
            if key not in self._connections:
                self._connections[key] = Connection(
                    config,
                    self._tg,
                    self._home,
                    grace=self._grace,
                    network=self._network,
                    on_tools_changed=functools.partial(self._resync, name),
                    handlers=self._handlers,
                )
            self._by_name[name] = self._connections[key]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
        assert self._tg is not None and self._portal is not None and self._home is not None
        # Forwarded calls still running end with their connections; then nothing new gets in.
        await self._portal.__aexit__(None, None, None)
        self._home.closed = True
        tg, self._tg, self._portal = self._tg, None, None
        if exc is not None and not isinstance(exc, anyio.get_cancelled_exc_class()):
            # The body failed (or Ctrl-C / exit): let its exception propagate as itself, not
            # wrapped in the ExceptionGroup a task group would make of it. Cancellation alone
            # must reach the task group.
            tg.cancel_scope.cancel()
            await tg.__aexit__(None, None, None)
        else:
            await tg.__aexit__(exc_type, exc, tb)

    async def aclose(self) -> None:
        """Close every connection; stdio servers get the bounded shutdown."""
        for connection in self._connections.values():
            await connection.aclose()

    def start(self) -> McpClientPool:
        """Open the pool from sync code, on the toolkit's background loop.

        That is the loop ``registry.call_sync`` and LangChain's sync ``invoke`` run on, so
        their calls need no forwarding. Close it with :meth:`close` (or use ``with pool:``).

        Returns:
            The pool itself.
        """
        cm = get_portal().wrap_async_context_manager(self)
        cm.__enter__()
        self._sync_cm = cm
        return self

    def close(self) -> None:
        """Close a pool opened with :meth:`start`, waiting for the bounded server shutdown.

        Does nothing if the pool is not open from sync code.
        """
        cm, self._sync_cm = self._sync_cm, None
        if cm is not None:
            cm.__exit__(None, None, None)

    def __enter__(self) -> McpClientPool:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- servers and tools -----------------------------------------------------------------

    @property
    def servers(self) -> list[str]:
        """The configured server names, in config order."""
        return list(self._configs)

    def config(self, server: str) -> McpServerConfig:
        """The config of ``server``."""
        return self._configs[self._known(server)]

    def connection(self, server: str) -> Connection:
        """The (lazily opened) connection of ``server``; needs an open pool."""
        self._open_home()
        return self._by_name[self._known(server)]

    async def connect(self, server: str | None = None) -> None:
        """Open connections now instead of on first use (one server or all)."""
        for name in [server] if server else self.servers:
            await self.connection(name).open()

    async def tools(self, server: str | None = None, *, prefix: Any = _DEFAULT) -> list[RemoteTool]:
        """The tools of one server (or all), after include/exclude, in the server's order.

        Args:
            server: A server name; ``None`` for every server.
            prefix: Registry-name prefix; default: each server's :attr:`tool_prefix`.
        """
        out: list[RemoteTool] = []
        for name in [server] if server else self.servers:
            connection, config = self.connection(name), self.config(name)
            start = config.tool_prefix if prefix is _DEFAULT else str(prefix or "")
            out.extend(self._admitted(name, start, await connection.list_tools()))
        return out

    def _admitted(
        self, server: str, prefix: str, listing: Sequence[Any] | None
    ) -> list[RemoteTool]:
        """The trusted tools of a listing (include/exclude applied), cleaned for models."""
        connection = self._by_name[server]
        guard = self.trust.guard(server, lambda: connection._tools)
        return [
            RemoteTool(
                connection, a.tool, name=prefix + a.tool.name, wire_name=a.wire_name, guard=guard
            )
            for a in self.trust.admit(server, listing or [])
        ]

    async def call(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        context: ToolContext | None = None,
    ) -> ToolResult:
        """Call a tool directly (validated, no registry); failures raise ``ToolError``
        (``DENIED`` for a tool held by the lock)."""
        remote = next((t for t in await self.tools(server, prefix="") if t.name == tool), None)
        held = next((h for h in self.trust.held(server) if h.tool == tool), None)
        if remote is None and held is not None:
            raise held.error()
        if remote is None:
            names = ", ".join(t.name for t in await self.tools(server, prefix="")) or "none"
            raise KeyError(f"server {server!r} has no tool {tool!r}; its tools: {names}")
        return await remote.call(
            remote.validate(arguments or {}), context or ToolContext(tool=tool)
        )

    async def register_into(
        self,
        registry: ToolRegistry,
        servers: Iterable[str] | None = None,
        *,
        prefix: Any = _DEFAULT,
    ) -> list[RemoteTool]:
        """Add the servers' tools to ``registry``, next to its local tools.

        Registry names are ``prefix + remote name`` (default prefix: the server key and
        ``_``); the wire keeps the server's name. When the server announces a new tool list,
        the registry is updated in place.

        A tool whose name is already taken, or does not fit ``^[a-zA-Z0-9_-]{1,64}$``, is
        skipped with a warning naming it and the fix; the server's other tools are added.

        Raises:
            RegistrationError: None of a server's tools could be added: every name collides
                with a tool already registered (the message names both sources), or none fits.
        """
        added: list[RemoteTool] = []
        for name in list(servers) if servers is not None else self.servers:
            start = self.config(name).tool_prefix if prefix is _DEFAULT else str(prefix or "")
            added.extend(await self._add(registry, name, start))
            self._bindings.append((registry, name, start))
        return added

    async def get_tools(self) -> list[Tool]:
        """Every server's tools, as :meth:`register_into` names them (needs an open pool).

        Raises:
            RegistrationError: None of a server's tools has a name that fits.
            ToolError: A server cannot be reached (``UNREACHABLE``…).
        """
        tools: list[Tool] = []
        for name in self.servers:
            tools.extend(self._fitting(name, await self.tools(name)))
        return tools

    def register_into_sync(
        self,
        registry: ToolRegistry,
        servers: Iterable[str] | None = None,
        *,
        prefix: Any = _DEFAULT,
    ) -> list[RemoteTool]:
        """:meth:`register_into` for sync code (the pool may live on any other loop).

        Raises:
            RegistrationError: As :meth:`register_into`.
            RuntimeError: The pool is not open, or was opened on this thread's running loop
                (await :meth:`register_into` there instead).
        """
        register = functools.partial(self.register_into, registry, servers, prefix=prefix)
        return self._open_home().run_sync(register)

    async def _add(self, registry: ToolRegistry, server: str, prefix: str) -> list[RemoteTool]:
        """Add the server's tools; one whose name is taken is skipped with a warning.

        Rule (the same at the first registration as on a refresh): a clashing tool never
        blocks the server's other tools. Only when none of them could be added (the same
        server twice, a missing prefix) is it an error.

        Raises:
            RegistrationError: Every tool of the server clashes (naming both sources and the fix).
        """
        tools = self._fitting(server, await self.tools(server, prefix=prefix))
        fix = _clash_fix(server)
        added: list[RemoteTool] = []
        clashes: list[tuple[RemoteTool, RegistrationError]] = []
        for tool in tools:
            try:
                registry.add(tool)
            except RegistrationError as exc:
                clashes.append((tool, exc))
                continue
            added.append(tool)
        if clashes and not added:
            raise RegistrationError(f"{clashes[0][1]} {fix}")
        for tool, clash in clashes:
            logger.warning("skipped tool %r of MCP server %r: %s %s", tool.name, server, clash, fix)
        self._registered[(id(registry), server)] = [t.name for t in added]
        return added

    def clash_fix(self, tool: Tool) -> str:
        """A clash fixed in the config: the server's ``prefix``, or ``exclude``."""
        return _clash_fix(tool.server if isinstance(tool, RemoteTool) else "...")

    def _fitting(self, server: str, tools: list[RemoteTool]) -> list[RemoteTool]:
        """The tools whose registry names fit; the others are skipped with a warning.

        Raises:
            RegistrationError: No tool of the server fits (a config mistake, e.g. the prefix).
        """
        good = [t for t in tools if is_valid_name(t.name)]
        bad = [t for t in tools if not is_valid_name(t.name)]
        if not bad:
            return good
        first = bad[0]
        message = (
            f"Tool {first.remote_name!r} of MCP server {server!r} becomes {first.name!r}, "
            "which does not fit ^[a-zA-Z0-9_-]{1,64}$; set a shorter 'prefix' for the "
            "server or exclude the tool ('exclude': [...])."
        )
        if not good:
            raise RegistrationError(message)
        logger.warning(
            "skipped %d tool(s) of MCP server %r whose names do not fit ^[a-zA-Z0-9_-]{1,64}$: %s",
            len(bad),
            server,
            ", ".join(repr(t.remote_name[:80]) for t in bad),
        )
        return good

    def _listed(self, server: str, prefix: str) -> list[RemoteTool]:
        """The server's tools as last listed (no request), after include/exclude."""
        return self._admitted(server, prefix, self._by_name[server]._tools)

    async def _resync(self, server: str) -> None:
        """Swap in the server's new tool list (already fetched in full) for every binding."""
        for registry, name, prefix in self._bindings:
            if name != server:
                continue
            try:
                fresh = self._fitting(server, self._listed(server, prefix))
            except RegistrationError as exc:
                logger.warning("kept the old tools of MCP server %r: %s", server, exc)
                continue
            key = (id(registry), name)
            old = self._registered.get(key, [])
            for stale in set(old) - {t.name for t in fresh}:
                if stale in registry:
                    registry.remove(stale)
            done: list[str] = []
            for tool in fresh:
                if tool.name in old and tool.name in registry:
                    registry.remove(tool.name)
                try:
                    registry.add(tool)
                except RegistrationError as exc:
                    logger.warning("skipped tool %r of MCP server %r: %s", tool.name, server, exc)
                    continue
                done.append(tool.name)
            self._registered[key] = done
        if self._listeners_list():
            try:
                self._notify(await self.get_tools())
            except (RegistrationError, ToolError) as exc:
                logger.warning("kept the old tools of the pool after %r changed: %s", server, exc)

    # -- status ----------------------------------------------------------------------------

    async def check(self, server: str) -> ServerStatus:
        """Connect and list tools now, timing it; the status says how it went."""
        started = time.perf_counter()
        with contextlib.suppress(ToolError):  # the status carries the message
            await self.tools(server)
        self._latency[server] = (time.perf_counter() - started) * 1000
        return self.status(server)

    def status(self, server: str) -> ServerStatus:
        """How ``server`` is doing, without connecting."""
        connection, config = self.connection(server), self.config(server)
        cached = connection._tools
        count = None if cached is None else sum(selected(t.name, config) for t in cached)
        return ServerStatus(
            name=server,
            transport=config.transport,
            state=connection.state,
            protocol_version=connection.protocol_version,
            tool_count=count,
            error=connection.last_error.message if connection.last_error else None,
            latency_ms=self._latency.get(server),
        )

    def statuses(self) -> list[ServerStatus]:
        """The status of every server (``idle`` before the pool opens, ``closed`` after)."""
        if self._tg is None:
            closed = self._home is not None and self._home.closed
            state: ConnectionState = "closed" if closed else "idle"
            return [
                ServerStatus(n, c.transport, state, None, None) for n, c in self._configs.items()
            ]
        return [self.status(name) for name in self.servers]

    def _open_home(self) -> HomeLoop:
        if self._tg is None or self._home is None:
            raise RuntimeError(
                "McpClientPool is not open; use 'async with McpClientPool(...) as pool:' in "
                "async code, or 'with McpClientPool(...) as pool:' / pool.start() in sync code."
            )
        return self._home

    def _known(self, server: str) -> str:
        if server not in self._configs:
            raise KeyError(
                f"no MCP server {server!r} in the config; known: {', '.join(self._configs)}"
            )
        return server

    def __repr__(self) -> str:
        parts = ", ".join(f"{s.name}={s.state}" for s in self.statuses())
        return f"McpClientPool({parts})"

    def _repr_html_(self) -> str:
        return html_safe("MCP client pool", self._status_html)

    def _status_html(self) -> str:
        return status_table(self.statuses())


def _clash_fix(server: str) -> str:
    return (
        f"To keep both, give MCP server {server!r} a 'prefix' in its config, or leave the "
        "tool out ('exclude': [...])."
    )
