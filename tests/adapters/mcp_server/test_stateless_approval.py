"""A destructive tool over stateless HTTP, called by a 2025-11-25 client that declared
elicitation: nobody can be asked mid-call, and the answer says so and names the fixes."""

from __future__ import annotations

from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from toolkit import ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio


@mcp_tool(destructive=True)
def drop_table(name: str) -> str:
    """Drop a table.

    Args:
        name: The table.
    """
    return f"dropped {name}"


async def _call(stateless: bool, asked: list[str]) -> types.CallToolResult:
    async def on_elicit(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    registry = ToolRegistry()
    registry.register(drop_table)
    with serving(http_app(build_server(registry), stateless=stateless)) as url:
        http = httpx2.AsyncClient(timeout=httpx2.Timeout(20))
        transport = streamable_http_client(f"{url}/mcp", http_client=http)
        async with Client(transport, mode="legacy", elicitation_callback=on_elicit) as client:
            return await client.call_tool("drop_table", {"name": "orders"})


async def test_stateless_http_says_no_user_was_asked_and_how_to_fix_it() -> None:
    asked: list[str] = []
    result = await _call(True, asked)
    [block] = result.content
    assert isinstance(block, types.TextContent)
    assert result.is_error and not asked
    assert "no user was asked" in block.text and "rejected" not in block.text
    assert "stateless HTTP" in block.text and "--stateful" in block.text
    assert "--allow-destructive drop_table" in block.text


async def test_stateful_http_asks_the_user_and_runs_it() -> None:
    asked: list[str] = []
    result = await _call(False, asked)
    assert not result.is_error and len(asked) == 1 and "drop_table" in asked[0]
