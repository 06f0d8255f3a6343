"""One server of a pool as a toolset: :class:`ServerToolset`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from adapters.mcp_client._pool import _clash_fix
from toolkit.errors import RegistrationError
from toolkit.tool import Tool
from toolkit.toolsets.toolset import ToolsChanged, WrapperToolset

if TYPE_CHECKING:
    from adapters.mcp_client._pool import McpClientPool

__all__ = ["ServerToolset"]

logger = logging.getLogger("adapters.mcp_client")


class ServerToolset(WrapperToolset):
    """The tools of one server of an open pool, under the server's prefix.

    Added with ``registry.add_toolset(ServerToolset(pool, name), on_clash="skip")``, a server
    behaves as with ``pool.register_into(registry, [name])``: a tool whose name is taken is
    skipped with a warning naming the config fix, a server none of whose tools could be added
    is an error, and the registry follows the server's ``list_changed``. Opening or closing it
    opens or closes the whole pool.

    Args:
        pool: The pool holding the server's connection.
        server: The server's name in the config.
    """

    def __init__(self, pool: McpClientPool, server: str) -> None:
        super().__init__(pool)
        self.pool = pool
        self.server = pool._known(server)

    async def get_tools(self) -> list[Tool]:
        """The server's tools (listed on first use).

        Raises:
            RegistrationError: None of the server's tools has a name that fits.
            ToolError: The server cannot be reached.
        """
        return list(self.pool._fitting(self.server, await self.pool.tools(self.server)))

    def _apply(self, tools: list[Tool], *, strict: bool) -> list[Tool]:
        # The pool reports every server's tools; this server's are its last listing.
        prefix = self.pool.config(self.server).tool_prefix
        return list(self.pool._fitting(self.server, self.pool._listed(self.server, prefix)))

    def on_change(self, callback: ToolsChanged) -> Callable[[], None]:
        """Report a new list of this server only (the pool reports any server's change)."""
        seen: list[Any] = [self._listing()]

        def changed(_: list[Tool]) -> None:
            listing = self._listing()
            if listing is seen[0]:
                return  # another server changed
            seen[0] = listing
            try:
                callback(self._apply([], strict=False))
            except RegistrationError as exc:
                logger.warning("kept the old tools of MCP server %r: %s", self.server, exc)

        return self.pool.on_change(changed)

    def _listing(self) -> Any:
        return self.pool.connection(self.server)._tools

    def clash_fix(self, tool: Tool) -> str:
        """A clash fixed in the config: the server's ``prefix``, or ``exclude``."""
        return _clash_fix(self.server)

    def __repr__(self) -> str:
        return f"MCP server {self.server!r}"
