"""What an MCP client pool reads besides tools: remote resources, templates and prompts.

Answers are the SDK's own types (``mcp_types.Resource``, ``ReadResourceResult``,
``GetPromptResult``), every page fetched; failures are ``ToolError`` with the pool's codes.
Listings are always fetched anew (the SDK's response cache is bypassed): they are asked for
at registration and after the server announced a change.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import mcp_types
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from adapters.mcp_client._connection import Connection
from adapters.mcp_client._pages import all_pages
from toolkit.errors import ErrorCode, ToolError

__all__ = ["Catalog"]


class Catalog:
    """Mixed into :class:`McpClientPool`: resources and prompts of the configured servers."""

    #: The connection of a server: :meth:`McpClientPool.connection` provides it.
    connection: Callable[[str], Connection]

    async def resources(self, server: str) -> list[mcp_types.Resource]:
        """The fixed resources ``server`` lists (``resources/list``, every page)."""
        return await self._listing(server, "resources/list", "list_resources", "resources", "uri")

    async def resource_templates(self, server: str) -> list[mcp_types.ResourceTemplate]:
        """The resource templates ``server`` lists (``resources/templates/list``)."""
        return await self._listing(
            server,
            "resources/templates/list",
            "list_resource_templates",
            "resource_templates",
            "uri_template",
        )

    async def read_resource(self, server: str, uri: str) -> mcp_types.ReadResourceResult:
        """The contents at ``uri`` on ``server`` (``resources/read``)."""

        async def send(client: Client) -> mcp_types.ReadResourceResult:
            return await client.read_resource(uri)

        return await self.connection(server).request("resources/read", send)

    async def subscribe_resource(self, server: str, uri: str) -> None:
        """Ask ``server`` to tell us when the resource at ``uri`` changes
        (``resources/subscribe``); updates reach ``connection(server).followers.on_updated``.

        Raises:
            ToolError: ``PROTOCOL_ERROR`` when the server does not offer subscriptions on a
                handshake connection (it says so in its capabilities); else the pool's codes.
        """
        connection = self.connection(server)
        client = await connection.client()
        caps = client.server_capabilities
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        if modern or not (caps.resources and caps.resources.subscribe):
            raise ToolError(
                f"The MCP server {server!r} does not offer resources/subscribe on this "
                f"connection, so updates of {uri!r} cannot be relayed; read the resource "
                f"again when you need it.",
                code=ErrorCode.PROTOCOL_ERROR,
            )

        async def send(client: Client) -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated only from 2026-07-28 on
                await client.subscribe_resource(uri)

        await connection.request("resources/subscribe", send)

    async def unsubscribe_resource(self, server: str, uri: str) -> None:
        """Tell ``server`` we no longer need updates of ``uri`` (``resources/unsubscribe``)."""

        async def send(client: Client) -> None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated only from 2026-07-28 on
                await client.unsubscribe_resource(uri)

        await self.connection(server).request("resources/unsubscribe", send)

    async def prompts(self, server: str) -> list[mcp_types.Prompt]:
        """The prompts ``server`` lists (``prompts/list``, every page)."""
        return await self._listing(server, "prompts/list", "list_prompts", "prompts", "name")

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> mcp_types.GetPromptResult:
        """The messages of prompt ``name`` on ``server`` for ``arguments`` (``prompts/get``)."""

        async def send(client: Client) -> mcp_types.GetPromptResult:
            return await client.get_prompt(name, arguments or {})

        return await self.connection(server).request("prompts/get", send)

    async def complete(
        self,
        server: str,
        ref: mcp_types.PromptReference | mcp_types.ResourceTemplateReference,
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Candidates ``server`` offers for one argument of a prompt or resource template
        (``completion/complete``)."""

        async def send(client: Client) -> list[str]:
            result = await client.complete(
                ref, {"name": argument, "value": value}, dict(context or {}) or None
            )
            return list(result.completion.values)

        return await self.connection(server).request("completion/complete", send)

    async def _listing(
        self, server: str, method: str, call: str, key: str, identity: str
    ) -> list[Any]:
        """Every page of one listing, fetched anew (the SDK's cache bypassed)."""

        async def send(client: Client) -> list[Any]:
            fetch = getattr(client, call)
            return await all_pages(
                lambda cursor: fetch(cursor=cursor, cache_mode="bypass"),
                key,
                method=method,
                identity=identity,
            )

        return await self.connection(server).request(method, send)
