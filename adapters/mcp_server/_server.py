"""``build_server``: a registry as an MCP server on the SDK's low-level ``Server``.

Adapters translate, they don't decide: ``tools/list`` serves each ``ToolSpec`` verbatim and
``tools/call`` goes through ``registry.call``, so validation, policy, timeouts, retries and the
exception processor are exactly those of every other sink.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from functools import cached_property
from importlib import metadata
from typing import Any

import anyio.to_thread
from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    CallToolRequestParams,
    PaginatedRequestParams,
    ServerCapabilities,
    SetLevelRequestParams,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from adapters.mcp_server._approval import ElicitingApprover
from adapters.mcp_server._callers import CallerMap, request_origin, visible_entries
from adapters.mcp_server._changes import ListChangeNotifier
from adapters.mcp_server._channel import SessionChannel, session_key
from adapters.mcp_server._log_relay import relaying_logs
from adapters.mcp_server._paging import ToolListing
from adapters.mcp_server._per_caller import PerCallerOptions
from adapters.mcp_server._progress_listener import asks_progress
from adapters.mcp_server._prompts import PromptHandlers
from adapters.mcp_server._remote_links import through_gateway
from adapters.mcp_server._remote_logs import relaying_remote_logs
from adapters.mcp_server._resources import ResourceHandlers
from adapters.mcp_server._rounds import InputRequired, Rounds, state_boundary
from adapters.mcp_server._search_mode import SEARCH_TOOL, SearchMode
from adapters.mcp_server._spans import quiet_when_untraced
from adapters.mcp_server._tasks import TaskServing, default_runner, task_capability
from adapters.mcp_server._wire import json_copy, tool_entry
from adapters.mcp_wire import call_result
from toolkit.calls.invoker import new_call_id
from toolkit.calls.options import CallOptions
from toolkit.calls.spec import ToolSpec
from toolkit.catalog.served_view import ServedView
from toolkit.context import ProgressCallback, ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.policy import Policy
from toolkit.registry import ToolRegistry
from toolkit.result import ToolResult
from toolkit.results.reader import offer_reader
from toolkit.results.store import MemoryResultStore
from toolkit.tasks.runner import TaskRunner

__all__ = ["RegistryServer", "build_server"]


def _package_version() -> str:
    try:
        return metadata.version("mcp-toolkit")
    except metadata.PackageNotFoundError:
        return "0.0.0"


class RegistryServer(Server[Any]):
    """An MCP ``Server`` serving the tools of a :class:`~toolkit.ToolRegistry`.

    Build it with :func:`build_server`; run it with :func:`serve_stdio`, :func:`http_app` or
    :func:`serve_http`, or hand it to ``mcp.Client`` in-process.

    Attributes:
        registry: The registry served; changes to it reach connected clients.
        changes: The list-changed broadcaster.
        callers: The bearer tokens of the known callers, if the server has them.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        name: str,
        version: str,
        instructions: str | None,
        page_size: int | None,
        allow_destructive: Iterable[str] = (),
        callers: CallerMap | None = None,
        tool_search: SearchMode | None = None,
        options: CallOptions | None = None,
        caller_header: str | None = None,
        tasks: TaskRunner | None = None,
    ) -> None:
        if page_size is not None and page_size < 1:
            raise ValueError(
                f"page_size must be a positive number of tools or None, not {page_size}"
            )
        self.registry = registry
        self.changes = ListChangeNotifier(self._forget_listing)
        self.changes.identify = self._handshake_values
        #: Advertise ``listChanged`` (tools, resources, prompts) and ``resources.subscribe`` to
        #: handshake clients; off when no connection outlives a POST (stateless HTTP), where
        #: nothing could be sent (a ``resources/subscribe`` is then refused, saying why).
        self.legacy_list_changed = True
        self._page_size = page_size
        self._listing: ToolListing | None = None
        self._log_levels: dict[str, str] = {}
        self._approver = ElicitingApprover(allow_destructive)
        self.callers = callers
        self._caller_header = caller_header
        base = options or CallOptions()
        # With callers, each one hears only of the tools it may see (errors included). A
        # 2026-07-28 client's input request always propagates, to be answered by the client.
        self._scoped = base.replace(
            hide_denied=base.hide_denied or callers is not None,
            propagate=(*base.propagate, InputRequired),
        )
        # The caller's approver decides when it gave one, then the registry's; else the
        # client's user does (through elicitation).
        self._asking = (
            self._scoped
            if base.approver is not None
            else self._scoped.replace(approver=self._approver)
        )
        self._search = tool_search
        self._per_caller = PerCallerOptions()
        super().__init__(
            name,
            version=version,
            instructions=instructions,
            lifespan=_lifespan,
            # With callers, the SDK reads a tool's schema (for Mcp-Param headers) from this
            # caller's own tools/list, so a hidden tool's schema answers nothing either.
            get_tool_input_schema=self._input_schema if callers is None else None,
            on_subscriptions_listen=self._listen,
        )
        # Registered here rather than as on_* arguments: they return wire dicts, not models.
        self.add_request_handler("tools/list", PaginatedRequestParams, self._list_tools)
        self.add_request_handler("tools/call", CallToolRequestParams, self._call_tool)
        self.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)
        self.resource_handlers = ResourceHandlers(
            registry.resources, self.changes.bus, self.served_view, lambda: self.legacy_list_changed
        )
        self.resource_handlers.install(self)
        PromptHandlers(registry.prompts, registry.resources, self.served_view).install(self)
        quiet_when_untraced(self.middleware)
        self.middleware.append(self.changes)
        self.middleware.append(state_boundary(name))
        #: Long calls run as tasks (``@mcp_tool(task=...)``), kept by ``tasks.runner``'s store.
        self.tasks = TaskServing(self, tasks or TaskRunner())
        self.tasks.install()
        registry.on_change(self.changes.registry_changed)
        registry.resources.on_change(self.changes.watcher("resources"))
        registry.prompts.on_change(self.changes.watcher("prompts"))

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """As the SDK's, advertising ``listChanged`` for tools, resources and prompts unless told
        otherwise (2026-07-28 clients learn it from the served ``subscriptions/listen``)."""
        changes = self.legacy_list_changed
        options = notification_options or NotificationOptions(
            tools_changed=changes, resources_changed=changes, prompts_changed=changes
        )
        return super().create_initialization_options(options, experimental_capabilities, extensions)

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> ServerCapabilities:
        """As the SDK's, without ``resources.subscribe`` for handshake clients where no
        connection outlives a request (stateless HTTP): no update could reach them."""
        caps = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        modern = protocol_version in MODERN_PROTOCOL_VERSIONS
        if caps.resources is not None and not self.legacy_list_changed and not modern:
            caps.resources = caps.resources.model_copy(update={"subscribe": False})
        if not modern:
            caps.tasks = task_capability()
        return caps

    @property
    def server_info_stamp(self) -> dict[str, Any]:
        """As the SDK's (a fresh copy of the once-per-server dump for each 2026-07-28 result),
        copied as JSON data instead of by ``copy.deepcopy``, which costs ten times more."""
        stamp: dict[str, Any] = json_copy(self._stamp_source)
        return stamp

    @cached_property
    def _stamp_source(self) -> dict[str, Any]:
        return super().server_info_stamp

    @property
    def policy(self) -> Policy | None:
        """The policy of the server's call options (``None``: the registry's)."""
        return self._scoped.policy

    def served_view(self, ctx: ServerRequestContext[Any]) -> ServedView:
        """The request's caller's view of the resources and prompts: its context (the caller's
        values), and the policy of ``options`` or the registry's."""
        values = _caller_values(ctx)
        values.update(self._caller(ctx))
        context = ToolContext(call_id=new_call_id(), values=values)
        named, peer = request_origin(ctx.request, self._caller_header)
        return ServedView(
            self.registry,
            context,
            policy=self._scoped.policy,
            caller=values.get("caller") or named,
            peer=peer,
        )

    async def _listen(self, ctx: ServerRequestContext[Any], params: Any) -> Any:
        return await self.resource_handlers.listen(ctx, params, self.changes.listen_handler)

    def _handshake_values(self, ctx: ServerRequestContext[Any]) -> dict[str, Any]:
        values = _caller_values(ctx)
        with contextlib.suppress(MCPError):  # no known caller: it hears what one without may
            values.update(self._caller(ctx))
        return values

    async def hears(self, session: object, server: str) -> bool:
        """Whether the caller of a handshake connection sees a tool of the remote ``server``
        (its background log messages go only to such callers)."""
        context = ToolContext(values=self.changes.values_of(session))
        view = ServedView(self.registry, context, policy=self._scoped.policy)
        return await view.sees_server(server)

    def listing(self) -> ToolListing:
        """The current tool listing (rebuilt after the registry changes)."""
        if self._search is not None:  # a few entries, and the most used change with every call
            meta, used = self._search.listed(self.registry)
            return ToolListing.build([*meta, *used], self._page_size)
        listing = self._listing
        if listing is None:
            registry = self.registry
            entries = [
                tool_entry(spec, output_schema=registry.output_enforced(spec))
                for spec in registry.specs()
            ]
            listing = self._listing = ToolListing.build(entries, self._page_size)
        return listing

    def _forget_listing(self) -> None:
        self._listing = None

    def _spec(self, name: str) -> ToolSpec | None:
        return self.registry.get(name).spec if name in self.registry else None

    def _input_schema(self, name: str) -> Mapping[str, Any] | None:
        if self._search is not None and self._search.handles(name, self.registry):
            return self._search.input_schema(name)
        spec = self._spec(name)
        return None if spec is None else spec.input_schema

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        cursor = params.cursor if params is not None else None
        if self.callers is None:
            return self.listing().page(cursor)
        values = {**_caller_values(ctx), **self._caller(ctx)}
        if self._search is not None:
            meta, used = self._search.listed(self.registry)
            visible = [
                *meta,
                *await visible_entries(self.registry, used, values, self._scoped.policy),
            ]
        else:
            visible = await visible_entries(
                self.registry, self.listing().entries, values, self._scoped.policy
            )
        return ToolListing.build(visible, self._page_size).page(cursor)

    def caller_values(self, ctx: ServerRequestContext[Any]) -> dict[str, Any]:
        """The context values of the request's caller: the connection's, and those of its
        bearer token when the server has callers."""
        values = _caller_values(ctx)
        values.update(self._caller(ctx))
        return values

    def _caller(self, ctx: ServerRequestContext[Any]) -> dict[str, Any]:
        """The values of the caller whose bearer token this request carries ({} without a map)."""
        if self.callers is None:
            return {}
        headers = getattr(ctx.request, "headers", None)
        caller = self.callers.identify(headers.get("authorization") if headers else None)
        if caller is None:
            raise MCPError(
                INVALID_REQUEST,
                "Unknown or missing bearer token: send 'Authorization: Bearer <token>' with "
                "a token listed in this server's callers file.",
            )
        return caller.values()

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> dict[str, Any]:
        # The correlation id is the server's own: a client's JSON-RPC id repeats across
        # clients and connections (every client starts at 0 or 1), so it identifies nothing.
        call_id = new_call_id()
        name, arguments = params.name, params.arguments or {}
        search = self._search
        meta = search is not None and search.handles(name, self.registry)
        if search is not None and meta:
            try:
                if name == SEARCH_TOOL:
                    # The first search builds the index (and every schema): off the event loop.
                    found = await anyio.to_thread.run_sync(search.search, self.registry, arguments)
                    if self.callers is not None:
                        values = {**_caller_values(ctx), **self._caller(ctx)}
                        found = await visible_entries(
                            self.registry, found, values, self._scoped.policy
                        )
                    return search.result(found, str(arguments["query"]))
                name, arguments = search.unwrap(arguments)
            except ToolError as error:  # the model's to fix: a result it reads
                return call_result(ToolResult.failure(error, tool=name, call_id=call_id), None)
        if meta:  # the search mode's call_tool: the tool it names
            params = params.model_copy(update={"name": name, "arguments": arguments})
        return await self.run_call(ctx, params, meta=meta, call_id=call_id)

    async def run_call(
        self,
        ctx: ServerRequestContext[Any],
        params: CallToolRequestParams,
        *,
        progress: ProgressCallback | None = None,
        channel_type: Callable[..., SessionChannel] = SessionChannel,
        meta: bool = False,
        call_id: str | None = None,
    ) -> dict[str, Any]:
        """Call a tool for the request's caller: the ``tools/call`` result as a wire dict.

        ``progress`` receives the call's progress (default: the client, as notifications);
        ``channel_type`` makes the channel to the client (logs, questions).
        """
        call_id = call_id or new_call_id()
        name, arguments = params.name, params.arguments or {}
        rounds = Rounds.of(ctx.protocol_version, params)
        channel = channel_type(
            ctx, self._log_levels, scrub=self.registry.processor.scrub, rounds=rounds
        )
        values = self.caller_values(ctx)
        if progress is None and asks_progress(ctx, params):
            # Only a caller that gave a token listens: without one a tool's reports go nowhere,
            # and a gateway's remote call asks for no progress it would drop.
            progress = ctx.session.report_progress
        context = ToolContext(call_id=call_id, values=values, progress=progress, client=channel)
        own = self._scoped.approver is not None or self.registry.approver is not None
        # The record names the authenticated caller, else a trusted header's, else the peer.
        named, peer = request_origin(ctx.request, self._caller_header)
        options = self._per_caller.of(
            self._scoped if own else self._asking, values.get("caller") or named, peer
        )
        try:
            async with relaying_logs(channel):
                result = await self.registry.call(
                    name, arguments, context, options=options, call_id=call_id
                )
        except InputRequired as needed:  # a 2026-07-28 client answers, then calls again
            return needed.result()
        if result.code is ErrorCode.TOOL_NOT_FOUND and not meta:
            # The spec makes an unknown tool a protocol error, not a tool result; a name given
            # to call_tool is an argument, so the model reads the error and picks another.
            raise MCPError(INVALID_PARAMS, result.content, data={"code": result.code.value})
        return call_result(through_gateway(self.registry, result), self._spec(result.tool or name))

    async def _set_level(
        self, ctx: ServerRequestContext[Any], params: SetLevelRequestParams
    ) -> dict[str, Any]:
        # Bounded: a long-lived HTTP server forgets the oldest sessions' levels first.
        if len(self._log_levels) >= 10_000:
            self._log_levels.pop(next(iter(self._log_levels)))
        self._log_levels[session_key(ctx)] = params.level
        return {}


@asynccontextmanager
async def _lifespan(server: Server[Any]) -> AsyncIterator[None]:
    assert isinstance(server, RegistryServer)
    async with (
        server.changes.running(),
        server.resource_handlers.running(),
        relaying_remote_logs(
            server.registry, server.changes.sessions, server._log_levels, server.hears
        ),
    ):
        yield


def _caller_values(ctx: ServerRequestContext[Any]) -> dict[str, Any]:
    values: dict[str, Any] = {"mcp_protocol_version": ctx.protocol_version}
    client = ctx.session.client_params
    if client is not None:
        values["mcp_client"] = client.client_info.name
    return values


def build_server(
    registry: ToolRegistry,
    *,
    name: str = "mcp-toolkit",
    version: str | None = None,
    instructions: str | None = None,
    page_size: int | None = None,
    allow_destructive: Iterable[str] = (),
    callers: CallerMap | None = None,
    tool_search: int | None = None,
    options: CallOptions | None = None,
    caller_header: str | None = None,
    tasks: TaskRunner | None = None,
) -> RegistryServer:
    """Serve ``registry`` over MCP: its specs on ``tools/list``, its invoker on ``tools/call``.

    Its ``@mcp_resource`` and ``@mcp_prompt`` functions (``registry.resources``,
    ``registry.prompts``) are served on ``resources/*``, ``prompts/*`` and
    ``completion/complete``; ``registry.resources.updated(uri)`` tells subscribed clients.

    Both protocol generations are served by the same object: 2026-07-28 (stateless, per-request
    envelope) and 2025-11-25 (``initialize`` handshake).

    Args:
        registry: The tools to serve. Tools, resources and prompts added or removed later
            are announced with ``notifications/{tools,resources,prompts}/list_changed`` (one
            per list per burst of changes).
        name: ``serverInfo.name``.
        version: ``serverInfo.version``; defaults to the installed mcp-toolkit version.
        instructions: Text telling the client's model how to use these tools together.
        page_size: Tools per ``tools/list`` page; ``None`` (default) sends all in one page.
        allow_destructive: Tools that need approval but run without asking (``"*"``: all).
            Others are approved by the client's user through elicitation, or refused.
        callers: Bearer tokens mapped to callers (:func:`load_callers`): each request must
            carry one; the caller's tenant, user and scopes are in ``ToolContext.values`` and
            ``tools/list`` hides the tools the policy denies them.
        tool_search: For big registries: ``tools/list`` holds a ``search_tools`` tool, a
            ``call_tool`` tool and the ``tool_search`` tools called most so far (0: none);
            every tool can still be called by name. ``None`` (default): list every tool.
        options: Per-call options for every ``tools/call`` (a policy, a timeout, an
            ``on_record``...). The server adds its own: ``InputRequired`` always propagates,
            ``hide_denied`` with ``callers``, and the client's user approves when neither
            these options nor the registry have an approver.
        caller_header: Over HTTP, the request header naming the caller (set by a trusted
            proxy); each call's record names the authenticated caller, else this header's
            value, else the peer address.
        tasks: Runs the calls of ``@mcp_tool(task=...)`` tools that a client asks to run as
            tasks; its store keeps them. Default: the file of the registry's shared result
            store (a call log's, as ``toolkit serve --call-log`` attaches), else this process's
            memory. Workers given runners over one :class:`~toolkit.tasks.store.SqliteTaskStore`
            answer for each other's tasks. See docs/tasks.md.

    Returns:
        A low-level ``mcp.server.Server`` subclass ready for any SDK transport.

    Raises:
        ValueError: ``page_size`` is not positive.
    """
    if not isinstance(registry.settings.result_store, MemoryResultStore | None):
        offer_reader(registry)  # a shared store: any worker reads what another one cut
    if tasks is None:
        tasks = default_runner(registry)
    return RegistryServer(
        registry,
        name=name,
        version=version if version is not None else _package_version(),
        instructions=instructions,
        page_size=page_size,
        allow_destructive=allow_destructive,
        callers=callers,
        tool_search=None if tool_search is None else SearchMode(top=tool_search),
        options=options,
        caller_header=caller_header,
        tasks=tasks,
    )
