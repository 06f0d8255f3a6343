"""A low-level MCP server whose tools/list comes in three pages (two tools per page)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server import Server

_TOOLS = [
    types.Tool(
        name=f"tool_{i}",
        description=f"Tool number {i}.",
        input_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
    )
    for i in range(6)
]
_PAGE = 2


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    start = int(params.cursor) if params and params.cursor else 0
    end = start + _PAGE
    return types.ListToolsResult(
        tools=_TOOLS[start:end], next_cursor=str(end) if end < len(_TOOLS) else None
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    x = (params.arguments or {}).get("x", 0)
    return types.CallToolResult(content=[types.TextContent(text=f"{params.name}:{x}")])


server = Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)

if __name__ == "__main__":
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
