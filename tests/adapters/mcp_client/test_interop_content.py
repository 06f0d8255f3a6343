"""What server-everything puts in its content survives our client and our gateway: a resource
link's description and the annotations' priority (with the audience)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from adapters.mcp_client import McpClientPool
from toolkit import ResourceContent, TextContent

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]


async def test_our_client_keeps_link_descriptions_and_priorities(peers: Path) -> None:
    command = str(peers / "node_modules/.bin/mcp-server-everything")
    async with McpClientPool({"mcpServers": {"ev": {"command": command}}}) as pool:
        links = await pool.call("ev", "get-resource-links", {"count": 2})
        annotated = await pool.call("ev", "get-annotated-message", {"messageType": "error"})
    resources = [b for b in links.blocks if isinstance(b, ResourceContent)]
    assert len(resources) == 2
    assert all(r.description and r.description.startswith("Resource ") for r in resources)
    [text] = [b for b in annotated.blocks if isinstance(b, TextContent)]
    assert text.priority == 1.0 and text.audience == ("user", "assistant")


async def test_the_gateway_serves_them_on(peers: Path, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    command = str(peers / "node_modules/.bin/mcp-server-everything")
    config.write_text(json.dumps({"mcpServers": {"ev": {"command": command}}}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "--config", str(config)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    async with Client(params, mode="legacy") as client:
        links = await client.call_tool("ev_get-resource-links", {"count": 1})
        annotated = await client.call_tool("ev_get-annotated-message", {"messageType": "debug"})
    [link] = [b for b in links.content if isinstance(b, types.ResourceLink)]
    assert link.description and link.description.startswith("Resource 1")
    [text] = [b for b in annotated.content if isinstance(b, types.TextContent)]
    assert text.annotations is not None
    assert text.annotations.priority == 0.3 and text.annotations.audience == ["assistant"]
