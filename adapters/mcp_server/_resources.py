"""``resources/*`` for a registry's ``@mcp_resource`` functions, and update notifications.

``resources/list`` serves the fixed URIs, ``resources/templates/list`` the templates and
``resources/read`` either. A 2025-11-25 client subscribes with ``resources/subscribe`` and hears
``notifications/resources/updated`` on its connection; a 2026-07-28 client names the URIs on
its ``subscriptions/listen`` stream and hears them there (the SDK's subscription bus). Over
stateless HTTP no connection outlives a request, so no update could arrive: ``resources/subscribe``
is not advertised there and is refused with a message that says so.

Rule: every surface answers to the caller (:mod:`toolkit.catalog.served_view`). Each request is served
from its caller's :class:`~toolkit.catalog.served_view.ServedView`: listings hold only what the policy
lets the caller see, a hidden resource is read or subscribed to exactly as a missing one, the
function gets the caller's context and each read is recorded with the caller.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel

from toolkit.catalog.resources import FunctionResource, ResourceRegistry, resource_not_found
from toolkit.catalog.served_view import ServedView
from toolkit.errors import ErrorCode, ToolError
from toolkit.result import ResourceContent

__all__ = ["ResourceHandlers", "mcp_error", "wire_result"]

logger = logging.getLogger(__name__)

#: Upper bound on subscriptions kept per server; the oldest is forgotten first.
_MAX_SUBSCRIPTIONS = 10_000


def wire_result(model: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` checked against the SDK's result ``model``, with its defaults (cache hints and
    ``resultType`` that 2026-07-28 clients require) filled in."""
    dumped: dict[str, Any] = model.model_validate(data).model_dump(
        by_alias=True, mode="json", exclude_none=True
    )
    return dumped


def mcp_error(error: ToolError, **data: Any) -> MCPError:
    """A toolkit failure as the JSON-RPC error a client reads (not found → invalid params)."""
    code = (
        INVALID_PARAMS
        if error.code in (ErrorCode.NOT_FOUND, ErrorCode.INVALID_PARAMS)
        else INTERNAL_ERROR
    )
    return MCPError(code, error.message, data={"code": error.code.value, **data})


def resource_entry(resource: FunctionResource) -> dict[str, Any]:
    """The ``resources/list`` or ``resources/templates/list`` entry of ``resource``."""
    key = "uriTemplate" if resource.is_template else "uri"
    entry: dict[str, Any] = {key: resource.uri, "name": resource.name}
    if resource.title:
        entry["title"] = resource.title
    if resource.description:
        entry["description"] = resource.description
    if resource.mime_type:
        entry["mimeType"] = resource.mime_type
    return entry


def contents_entry(content: ResourceContent) -> dict[str, Any]:
    """One item of ``resources/read``'s ``contents``: text, else a base64 ``blob``."""
    entry: dict[str, Any] = {"uri": content.uri}
    if content.mime_type:
        entry["mimeType"] = content.mime_type
    if content.text is not None:
        entry["text"] = content.text
    else:
        entry["blob"] = content.blob or ""
    return entry


class ResourceHandlers:
    """The request handlers for ``resources`` and the update broadcaster.

    Args:
        resources: The registry's resources.
        bus: The server's subscription bus (2026-07-28 ``subscriptions/listen`` streams).
        view: The caller's view of the registry for a request.
        lasting: Whether a connection outlives its request (not over stateless HTTP), so a
            subscription can be told of updates.
    """

    def __init__(
        self,
        resources: ResourceRegistry,
        bus: InMemorySubscriptionBus,
        view: Callable[[ServerRequestContext[Any]], ServedView],
        lasting: Callable[[], bool] = lambda: True,
    ) -> None:
        self.resources = resources
        self._bus = bus
        self._view = view
        self._lasting = lasting
        self._subscribers: dict[str, dict[int, Any]] = {}
        self._count = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: asyncio.Queue[str] | None = None
        self._depth = 0
        resources.on_update(self._updated)

    def install(self, server: Any) -> None:
        """Register the handlers on ``server`` (a low-level SDK ``Server``)."""
        server.add_request_handler("resources/list", PaginatedRequestParams, self.list)
        server.add_request_handler(
            "resources/templates/list", PaginatedRequestParams, self.list_templates
        )
        server.add_request_handler("resources/read", ReadResourceRequestParams, self.read)
        server.add_request_handler("resources/subscribe", SubscribeRequestParams, self.subscribe)
        server.add_request_handler(
            "resources/unsubscribe", UnsubscribeRequestParams, self.unsubscribe
        )

    async def list(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        """``resources/list``: every fixed URI the caller may see, in one page."""
        entries = [resource_entry(r) for r in await self._view(ctx).resources()]
        return wire_result(mcp_types.ListResourcesResult, {"resources": entries})

    async def list_templates(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        """``resources/templates/list``: every URI template the caller may see, in one page."""
        entries = [resource_entry(r) for r in await self._view(ctx).templates()]
        return wire_result(mcp_types.ListResourceTemplatesResult, {"resourceTemplates": entries})

    async def read(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> dict[str, Any]:
        """``resources/read``: the contents at a URI, or an error naming what went wrong."""
        view = self._view(ctx)
        try:
            contents = await view.read(params.uri)
        except ToolError as error:
            raise mcp_error(error, uri=params.uri) from None
        entries = [contents_entry(c) for c in contents]
        return wire_result(mcp_types.ReadResourceResult, {"contents": entries})

    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams
    ) -> dict[str, Any]:
        """``resources/subscribe``: this connection hears when ``params.uri`` changes.

        A gateway's copy of a remote resource is subscribed to on its server too.
        """
        if not self._lasting():
            raise MCPError(
                INVALID_REQUEST,
                "This server runs stateless HTTP: no connection outlives a request, so no "
                "update could reach you. Read the resource again when you need it, or use a "
                "server with sessions (stateful HTTP, stdio) or a 2026-07-28 client's "
                "subscriptions/listen stream.",
                data={"uri": params.uri},
            )
        if await self._view(ctx).resource(params.uri) is None:
            raise mcp_error(resource_not_found(params.uri), uri=params.uri)
        try:
            await self.resources.subscribing(params.uri)
        except ToolError as error:
            raise mcp_error(error, uri=params.uri) from None
        if self._count >= _MAX_SUBSCRIPTIONS:
            self._forget_oldest()
        peer = _peer(ctx)
        sessions = self._subscribers.setdefault(params.uri, {})
        if id(peer) not in sessions:
            self._count += 1
        sessions[id(peer)] = peer
        return {}

    async def listen(
        self,
        ctx: ServerRequestContext[Any],
        params: SubscriptionsListenRequestParams,
        handler: Callable[..., Awaitable[Any]],
    ) -> Any:
        """``subscriptions/listen`` (2026-07-28) through ``handler``, the stream hearing only
        of URIs the caller may read: others are left out of the honored filter, a hidden URI
        exactly as one that no resource serves."""
        wanted = params.notifications.resource_subscriptions
        if wanted:
            view = self._view(ctx)
            kept = [uri for uri in wanted if await view.resource(uri) is not None]
            notifications = params.notifications.model_copy(
                update={"resource_subscriptions": kept or None}
            )
            params = params.model_copy(update={"notifications": notifications})
        return await handler(ctx, params)

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams
    ) -> dict[str, Any]:
        """``resources/unsubscribe``: stop telling this connection about ``params.uri``."""
        sessions = self._subscribers.get(params.uri, {})
        if sessions.pop(id(_peer(ctx)), None) is not None:
            self._count -= 1
            if not sessions:  # the last one: a gateway lets go of the remote resource too
                try:
                    await self.resources.unsubscribed(params.uri)
                except ToolError as error:
                    logger.info("unsubscribing %r: %s", params.uri, error.message)
        if not sessions:
            self._subscribers.pop(params.uri, None)
        return {}

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the broadcaster while the server runs (entered by the server's lifespan)."""
        self._depth += 1
        if self._depth > 1:
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._loop, self._pending = asyncio.get_running_loop(), asyncio.Queue(maxsize=1024)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._broadcast, self._pending)
                try:
                    yield
                finally:
                    group.cancel_scope.cancel()
        finally:
            self._loop = self._pending = None
            self._depth -= 1

    def _updated(self, uri: str) -> None:
        """``ResourceRegistry.updated``'s listener; safe to call from any thread."""
        loop, pending = self._loop, self._pending
        if loop is None or pending is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(_offer, pending, uri)

    async def _broadcast(self, pending: asyncio.Queue[str]) -> None:
        while True:
            uri = await pending.get()
            await self._bus.publish(ResourceUpdated(uri=uri))
            for key, session in list(self._subscribers.get(uri, {}).items()):
                try:
                    await session.send_resource_updated(uri)
                except Exception:  # the connection is gone: forget it
                    logger.debug("dropping a closed connection from resource updates")
                    if self._subscribers.get(uri, {}).pop(key, None) is not None:
                        self._count -= 1

    def _forget_oldest(self) -> None:
        uri = next(iter(self._subscribers))
        sessions = self._subscribers[uri]
        sessions.pop(next(iter(sessions)))
        self._count -= 1
        if not sessions:
            del self._subscribers[uri]


def _peer(ctx: ServerRequestContext[Any]) -> Any:
    """The client's connection: it outlives the request (the SDK builds a session per request)
    and sends on the connection's own stream, not on the subscribe request's finished one."""
    return getattr(ctx.session, "_connection", ctx.session)


def _offer(queue: asyncio.Queue[str], uri: str) -> None:
    if queue.full():  # a burst faster than clients are told: the oldest update gives way
        queue.get_nowait()
    queue.put_nowait(uri)
