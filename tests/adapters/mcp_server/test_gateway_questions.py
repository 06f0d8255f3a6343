"""A remote server's question during a call, through the gateway, reaches the client whose call
caused it, in both protocol generations; a client that cannot answer ends the call with a
clear error, not a hang."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]


def _gateway(tmp_path: Path, mode: str) -> StdioServerParameters:
    """Our gateway in front of a server whose ``reserve`` tool asks how many to reserve."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    remote = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.support.asking_server:registry"],
        "env": {"PYTHONPATH": str(ROOT)},
        "cwd": str(ROOT),
        "protocol": mode,
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"shop": remote}}))
    args = ["-m", "adapters.mcp_server", "--config", str(config)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_remote_servers_question_is_answered_by_the_calling_client(
    tmp_path: Path, mode: str
) -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> Any:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"quantity": 3})

    async with Client(
        _gateway(tmp_path, mode), mode=mode, elicitation_callback=on_elicit
    ) as client:
        first = await client.call_tool("shop_reserve", {"sku": "A-1"})
        second = await client.call_tool("shop_reserve", {"sku": "B-2"})
    assert not first.is_error and _text(first) == "reserved 3 of A-1", _text(first)
    assert _text(second) == "reserved 3 of B-2", _text(second)
    assert asked == ["How many of A-1 should I reserve?", "How many of B-2 should I reserve?"]


async def test_a_client_that_cannot_answer_ends_the_call_with_a_clear_error(
    tmp_path: Path,
) -> None:
    async with Client(_gateway(tmp_path, "legacy"), mode="legacy") as client:  # no elicitation
        refused = await client.call_tool("shop_reserve", {"sku": "A-1"})
        after = await client.call_tool("shop_reserve", {"sku": "A-1"})
    text = _text(refused)
    assert refused.is_error and text.startswith("Error [DENIED]"), text
    assert "elicitation" in text and "reserved" not in text, text
    # The connection to the remote went on: the next call is refused the same way.
    assert re.sub(r"ref \S+", "", _text(after)) == re.sub(r"ref \S+", "", text)
