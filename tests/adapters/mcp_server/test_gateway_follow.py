"""End to end: a remote server's resources and prompts change, the gateway (``toolkit serve
--config``) follows, and the gateway's own clients hear ``list_changed``. Three processes:
the SDK client, our gateway, and a remote MCPServer, over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.support.list_changes import Heard, listening

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
CATALOG = ROOT / "tests/support/mcp_servers/catalog_server.py"


@pytest.mark.parametrize("remote", ["modern", "legacy"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_gateways_clients_hear_a_remote_servers_new_resources_and_prompts(
    tmp_path: Path, mode: str, remote: str
) -> None:
    args = [str(CATALOG), *(["--legacy"] if remote == "legacy" else [])]
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"cat": {"command": sys.executable, "args": args}}})
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    gateway = StdioServerParameters(
        command=sys.executable,
        args=["-m", "adapters.mcp_server", "--config", str(config)],
        env=env,
        cwd=str(ROOT),
    )
    heard = Heard()
    async with Client(gateway, mode=mode, message_handler=heard) as client:
        before = [str(r.uri) for r in (await client.list_resources()).resources]
        async with listening(client, mode):
            await client.call_tool("cat_add_note", {"name": "second"})
            await heard.until("resources")
            await client.call_tool("cat_add_prompt", {"name": "outline"})
            await heard.until("prompts")
        after = [str(r.uri) for r in (await client.list_resources()).resources]
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        note = await client.read_resource("cat+notes://second")
    assert before == ["cat+notes://first"]
    assert after == ["cat+notes://first", "cat+notes://second"]
    assert prompts == ["cat_greet", "cat_outline"]
    assert note.contents[0].text == "note second"  # type: ignore[union-attr]
    assert heard.counts["resources"] == heard.counts["prompts"] == 1
