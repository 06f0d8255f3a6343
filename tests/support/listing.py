"""Every page of ``tools/list`` as an MCP client sees it."""

from __future__ import annotations

from mcp import Client


async def tool_names_and_pages(client: Client) -> tuple[list[str], int]:
    """The listed tool names, in order, and how many pages they came in."""
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await client.list_tools(cursor=cursor)
        names += [tool.name for tool in page.tools]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            return names, pages
