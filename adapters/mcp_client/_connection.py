"""One long-lived connection to one MCP server, owned by one task.

anyio cancel scopes must be entered and exited in the same task, so each connection's
``mcp.Client`` is entered and left by a dedicated owner task that lives in the pool's task
group. Callers in any task of the same event loop send requests on the open session
concurrently; the session multiplexes them by JSON-RPC id. Callers on any other loop or
thread are forwarded to that loop (:class:`HomeLoop`) by the public methods.

Design rule: a ``tools/call`` that may have reached the server (the connection broke or the
call timed out after it was sent) is never sent again unless the tool is idempotent — the
server marks it ``idempotentHint`` or ``readOnlyHint``, or the config lists it in
``idempotent``. Its error then says it is not retryable, so the invoker does not re-send it
either. A call that never left (the connect failed) may always be retried.
"""

from __future__ import annotations

import fnmatch
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio
import anyio.abc
import mcp_types
from mcp import Client
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.shared.exceptions import MCPError

from adapters.mcp_client._asking import AskInCaller
from adapters.mcp_client._bounded import too_large
from adapters.mcp_client._call_logs import CallLogs
from adapters.mcp_client._config import McpServerConfig
from adapters.mcp_client._errors import FailureFacts, is_connection_lost, to_tool_error
from adapters.mcp_client._follow import Coalesced, ListFollowers, announced, changed_list
from adapters.mcp_client._handlers import ClientHandlers, client_options
from adapters.mcp_client._home import HomeLoop
from adapters.mcp_client._http_transport import call_headers, remote_transport
from adapters.mcp_client._pages import all_pages
from adapters.mcp_client._process import ChildProcess, stdio_transport
from adapters.mcp_client._sdk_private import TransportStreams
from adapters.network import NetworkPolicy
from toolkit.context import LogCallback, ProgressCallback
from toolkit.errors import ErrorCode, ToolError

__all__ = ["Connection", "ConnectionState"]

logger = logging.getLogger("adapters.mcp_client")
_R = TypeVar("_R")

ConnectionState = Literal["idle", "connecting", "ready", "failed", "closed"]

_AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key"})


_BACKOFF = (0.1, 0.3, 1.0, 2.0)


@dataclass
class _Live:
    """One owner task's session: replaced on every reconnect."""

    stop: anyio.Event = field(default_factory=anyio.Event)
    client: Client | None = None
    child: ChildProcess | None = None
    auth_status: int | None = None
    lost: bool = False

    def end(self) -> None:
        """The transport is gone: the next call reconnects, the owner shuts down."""
        self.lost = True
        self.stop.set()


class Connection:
    """A lazily opened, self-healing connection to one server.

    Args:
        config: The server.
        task_group: Where owner tasks live (the pool's).
        home: The loop of ``task_group``; calls from elsewhere are forwarded to it.
        grace: Seconds a stdio server gets at each shutdown step.
        network: Policy for HTTP targets.
        on_tools_changed: Awaited after the server announced a new tool list.
    """

    def __init__(
        self,
        config: McpServerConfig,
        task_group: anyio.abc.TaskGroup,
        home: HomeLoop,
        *,
        grace: float,
        network: NetworkPolicy,
        on_tools_changed: Callable[[], Awaitable[None]],
        handlers: ClientHandlers | None = None,
    ) -> None:
        self.config = config
        self._handlers = handlers
        self.state: ConnectionState = "idle"
        self.protocol_version: str | None = None
        self.last_error: ToolError | None = None
        self.connects = 0
        self._tg = task_group
        self._home = home
        self._grace = grace
        self._network = NetworkPolicy.untrusted() if not config.trusted else network
        self._on_tools_changed = on_tools_changed
        self._tool_refresh = Coalesced(self._refresh)
        #: What runs when the server's resource or prompt list changes (``followers.add``).
        self.followers = ListFollowers()
        self._lock = anyio.Lock()
        self._live: _Live | None = None
        self._tools: list[mcp_types.Tool] | None = None
        self._secrets = config.secrets()
        self._call_logs = CallLogs(config.name)

    # -- public ----------------------------------------------------------------------------

    @property
    def asking(self) -> AskInCaller | None:
        """The elicitation handler when it answers in the caller's task, else ``None``."""
        handler = self._handlers.elicitation if self._handlers else None
        return handler if isinstance(handler, AskInCaller) else None

    @property
    def pid(self) -> int | None:
        """The process id of a running stdio server."""
        live = self._live
        return live.child.pid if live and live.child and live.child.pid else None

    async def open(self) -> None:
        """Connect now (with bounded retries) unless already connected; from any loop."""
        await self._home.run(self.client)

    async def client(self) -> Client:
        """The open client, connecting (with bounded retries) when needed.

        The client belongs to the home loop: call this only there (see :meth:`open`).
        """
        live = self._live
        if live is not None and live.client is not None and not live.lost:
            return live.client
        async with self._lock:
            live = self._live
            if live is not None and live.client is not None and not live.lost:
                return live.client
            if self.state == "closed":
                raise ToolError(
                    f"MCP server {self.config.name!r}: the pool is closed.",
                    code=ErrorCode.UNREACHABLE,
                )
            return await self._connect_with_retries()

    async def list_tools(self, *, refresh: bool = False) -> list[mcp_types.Tool]:
        """All tools of the server (every page), cached until the server says they changed."""
        if self._tools is not None and not refresh:
            return self._tools
        return await self._home.run(self._list_tools, refresh)

    async def _list_tools(self, refresh: bool) -> list[mcp_types.Tool]:
        if self._tools is not None and not refresh:
            return self._tools
        client = await self.client()
        try:
            with anyio.fail_after(self.config.connect_timeout):
                tools = await all_pages(
                    lambda c: client.list_tools(cursor=c, cache_mode="bypass"),
                    "tools",
                    method="tools/list",
                )
        except Exception as exc:
            self.last_error = await self._failure(exc, "tools/list")
            raise self.last_error from None
        self._tools = tools
        return tools

    async def request(self, phase: str, send: Callable[[Client], Awaitable[_R]]) -> _R:
        """Run ``send(client)`` on the home loop (any request besides tools), bounded by the
        call timeout; transport failures are raised as classified ``ToolError``.

        Args:
            phase: The method, for messages (such as ``"resources/read"``).
            send: Sends the request with the open client.
        """

        async def run() -> _R:
            client = await self.client()
            try:
                with anyio.fail_after(self.config.call_timeout):
                    return await send(client)
            except Exception as exc:
                raise await self._failure(exc, phase) from None

        return await self._home.run(run)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        meta: dict[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        progress: ProgressCallback | None = None,
        log: LogCallback | None = None,
    ) -> mcp_types.CallToolResult:
        """Send ``tools/call``; transport failures are raised as classified ``ToolError``.

        Works from any event loop or thread; cancelling the caller cancels the request.
        ``progress`` receives the server's progress notifications for this call, ``log`` its
        log messages (see :mod:`adapters.mcp_client._call_logs`).
        """
        return await self._home.run(self._call_tool, name, arguments, meta, headers, progress, log)

    async def _call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        meta: dict[str, Any] | None,
        headers: Mapping[str, str] | None,
        progress: ProgressCallback | None = None,
        log: LogCallback | None = None,
    ) -> mcp_types.CallToolResult:
        timeout = self.config.call_timeout
        for attempt in range(2):
            client = await self.client()
            token = call_headers.set(dict(headers or {}))
            started = time.monotonic()
            try:
                # The SDK's own request clock (one cancel scope it enters anyway) keeps the
                # limit; a scope of ours around it cost about 20 µs per call.
                with self._call_logs.watch(log):
                    return await client.call_tool(
                        name,
                        arguments,
                        read_timeout_seconds=timeout,
                        progress_callback=progress,  # type: ignore[arg-type]
                        meta=meta,  # type: ignore[arg-type]
                    )
            except Exception as exc:
                if _ran_out(exc, time.monotonic() - started, timeout):
                    raise self._maybe_ran(
                        name,
                        ToolError(
                            f"Tool {name} on MCP server {self.config.name!r} did not finish "
                            f"within {timeout:g} s. Try again, or with a smaller request.",
                            code=ErrorCode.TIMEOUT,
                        ),
                    ) from None
                error = await self._failure(exc, "call")
                # A terminated HTTP session never ran the request: reconnect and send it again.
                if attempt == 0 and _session_expired(exc):
                    continue
                raise self._maybe_ran(name, error) from None
            finally:
                call_headers.reset(token)
        raise AssertionError("unreachable")

    def idempotent(self, name: str) -> bool:
        """Whether tool ``name`` may be sent again after it may have run once."""
        if any(fnmatch.fnmatchcase(name, p) for p in self.config.idempotent):
            return True
        tool = next((t for t in self._tools or () if t.name == name), None)
        hints = tool.annotations if tool is not None else None
        return bool(hints and (hints.idempotent_hint or hints.read_only_hint))

    def _maybe_ran(self, name: str, error: ToolError) -> ToolError:
        """``error`` of a call that may have run: retryable only for an idempotent tool."""
        if error.retryable and not self.idempotent(name):
            error.retryable = False
            error.message += (
                f" The call may have run on the server; it is not sent again because {name} "
                "is not marked idempotent."
            )
            error.args = (error.message,)
        return error

    async def aclose(self) -> None:
        """Stop the owner task (the server process is shut down, bounded); from any loop."""
        await self._home.run(self._close)

    async def _close(self) -> None:
        self.state = "closed"
        if self._live is not None:
            self._live.stop.set()

    # -- connecting ------------------------------------------------------------------------

    async def _connect_with_retries(self) -> Client:
        self.state = "connecting"
        if self._live is not None:
            self._live.stop.set()
        error: ToolError | None = None
        for attempt in range(1 + self.config.retries):
            if attempt:
                await anyio.sleep(_BACKOFF[min(attempt - 1, len(_BACKOFF) - 1)])
            live = _Live()
            try:
                await self._tg.start(self._own, live)
            except ToolError as exc:
                error = exc
                if not exc.retryable:
                    break
                continue
            self._live, self.state, self.last_error = live, "ready", None
            self.connects += 1
            if self.connects > 1:  # changes made while we were away were never announced
                self.followers.missed(self._tg)
                if self._tools is not None:  # the tools too: checked against the lock again
                    self._tool_refresh.poke(self._tg)
            assert live.client is not None
            return live.client
        assert error is not None
        if error.code is ErrorCode.UNREACHABLE:
            # Never reached in any attempt: calling again at once fails the same way (the
            # message says what to check), so the invoker does not retry, nor the model.
            error.retryable = False
        self.state, self.last_error = "failed", error
        raise error

    async def _own(self, live: _Live, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """The owner task: enter the client, report ready, hold it until told to stop."""
        started = False
        deadline = anyio.current_time() + self.config.connect_timeout
        try:
            with anyio.CancelScope(deadline=deadline) as scope:
                async with AsyncExitStack() as stack:
                    client = await self._open(stack, live)
                    scope.deadline = math.inf
                    live.client = client
                    self.protocol_version = client.protocol_version
                    if _listens(client):
                        await self._tg.start(self._listen, live)
                    started = True
                    task_status.started()
                    await live.stop.wait()
            if not started:
                raise TimeoutError
        except Exception as exc:
            if not started:
                raise await self._failure(exc, "connect", live) from None
            logger.info("connection to %r ended: %s", self.config.name, self._redact(repr(exc)))
        finally:
            live.lost = True
            live.client = None

    async def _open(self, stack: AsyncExitStack, live: _Live) -> Client:
        transport = await self._transport(live)
        client = Client(
            transport,
            mode=self.config.protocol,
            message_handler=self._handler(live),
            **client_options(self.config.name, self._handlers, self._call_logs.relay),
        )
        return await stack.enter_async_context(client)

    async def _transport(self, live: _Live) -> AbstractAsyncContextManager[TransportStreams]:
        config = self.config
        if config.transport == "stdio":
            live.child = ChildProcess()
            return stdio_transport(
                config, live.child, grace=self._grace, redact=self._redact, on_eof=live.end
            )

        def on_auth(status: int) -> None:
            live.auth_status = status

        return await remote_transport(config, self._handlers, self._network, on_auth)

    # -- notifications ---------------------------------------------------------------------

    def _handler(self, live: _Live) -> MessageHandlerFnT:
        async def handle(message: IncomingMessage) -> None:
            kind = changed_list(message)
            if kind == "tools":
                # The old list stays until the new one is complete (all-or-nothing refresh).
                self._tool_refresh.poke(self._tg)
            elif kind is not None and live.client is not None and announced(live.client)[kind]:
                self.followers.poke(kind, self._tg)  # only lists the server said it announces
            elif isinstance(message, mcp_types.ResourceUpdatedNotification):
                self.followers.updated(message.params.uri)
            await anyio.lowlevel.checkpoint()

        return handle

    async def _listen(self, live: _Live, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """On a modern connection, list_changed arrives on a ``subscriptions/listen`` stream."""
        client = live.client
        assert client is not None
        started = False
        try:
            lists = announced(client)
            async with client.listen(
                tools_list_changed=lists["tools"],
                resources_list_changed=lists["resources"],
                prompts_list_changed=lists["prompts"],
            ) as subscription:
                started = True
                task_status.started()
                with anyio.CancelScope() as scope:
                    self._tg.start_soon(_cancel_on, live.stop, scope)
                    async for _event in subscription:
                        pass  # the message handler sees the notification too
        except Exception as exc:
            logger.info(
                "list_changed stream of %r ended: %s", self.config.name, self._redact(repr(exc))
            )
        if not started:
            task_status.started()

    async def _refresh(self) -> None:
        """Fetch the new list, then let the pool swap it in; never raises (the pool lives on)."""
        try:
            await self.list_tools(refresh=True)
            if self.state != "closed":
                await self._on_tools_changed()
        except Exception as exc:
            if self.state == "closed":
                return  # the pool is closing: the refresh no longer matters
            message = exc.message if isinstance(exc, ToolError) else repr(exc)
            logger.warning(
                "refreshing the tools of %r failed; the old tools stay: %s",
                self.config.name,
                self._redact(message),
            )

    # -- failures --------------------------------------------------------------------------

    async def _failure(
        self, exc: BaseException, phase: str, live: _Live | None = None
    ) -> ToolError:
        live = live or self._live
        if isinstance(exc, ToolError):
            return exc
        if (oversized := too_large(exc, self.config.name)) is not None:
            return oversized
        if is_connection_lost(exc) and live is not None:
            live.end()
            if live.child is not None:
                # Let the owner reap the process so the message can give its exit code.
                with anyio.move_on_after(self._grace * 3 + 1):
                    while live.client is not None:
                        await anyio.sleep(0.02)
        child = live.child if live else None
        facts = FailureFacts(
            server=self.config.name,
            auth_status=live.auth_status if live else None,
            violation=child.violation if child else None,
            stderr_tail=" | ".join(list(child.stderr_tail)[-3:]) if child else "",
            returncode=child.returncode if child else None,
            token_configured=self.config.auth.type != "none"
            or any(k.lower() in _AUTH_HEADERS for k in self.config.headers),
            auth_type=self.config.auth.type,
            transport=self.config.transport,
            target=self.config.target,
        )
        return to_tool_error(exc, facts, self._redact, phase=phase)

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def __repr__(self) -> str:
        return f"Connection(server={self.config.name!r}, state={self.state!r}, protocol={self.protocol_version!r})"


def _listens(client: Client) -> bool:
    modern = client.protocol_version in mcp_types.version.MODERN_PROTOCOL_VERSIONS
    return modern and any(announced(client).values())


def _ran_out(exc: Exception, elapsed: float, timeout: float | None) -> bool:
    """Whether ``exc`` is the SDK's own request timeout rather than a server's -32001 reply.

    The SDK raises the same code a server may answer with; only ours comes after the whole
    limit has passed (its clock starts once the request is written).
    """
    return (
        timeout is not None
        and isinstance(exc, MCPError)
        and exc.code == mcp_types.REQUEST_TIMEOUT
        and elapsed >= timeout
    )


def _session_expired(exc: BaseException) -> bool:
    return isinstance(exc, Exception) and "session terminated" in str(exc).lower()


async def _cancel_on(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
