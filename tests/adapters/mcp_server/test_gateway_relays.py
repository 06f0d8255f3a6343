"""Through the gateway, server-everything's background log messages reach our client, and its
sampling requests are answered by the model of the client whose call caused them."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

ROOT = Path(__file__).resolve().parents[3]
EVERYTHING = ROOT / ".peers/node_modules/.bin/mcp-server-everything"


def _gateway(tmp_path: Path) -> StdioServerParameters:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"ev": {"command": str(EVERYTHING)}}}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "--config", str(config)]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))


async def test_background_logs_of_a_remote_server_reach_the_client(tmp_path: Path) -> None:
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    async with Client(_gateway(tmp_path), mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("ev_toggle-simulated-logging", {})
        with anyio.fail_after(60):  # one message every 5 s, at a random level
            while not any(r.logger == "remote:ev" for r in received):
                await anyio.sleep(0.1)
    relayed = next(r for r in received if r.logger == "remote:ev")
    # server-everything writes "Info-level message", "Alert level-message" and the like.
    assert re.search(r"level[- ]message", str(relayed.data), re.IGNORECASE), relayed.data
    assert relayed.level != "debug"  # below the default "info" of a client that set none


async def test_remote_sampling_is_answered_by_the_calling_clients_model(tmp_path: Path) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def on_sample(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="forty-two"),
            model="client-model",
            stop_reason="endTurn",
        )

    async with Client(_gateway(tmp_path), mode="legacy", sampling_callback=on_sample) as client:
        result = await client.call_tool(
            "ev_trigger-sampling-request", {"prompt": "the answer?", "maxTokens": 20}
        )
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert not result.is_error, text
    assert "forty-two" in text
    [params] = asked
    assert "the answer?" in str(params.messages[0].content)
    assert params.max_tokens == 20


async def test_a_client_that_cannot_sample_gets_a_clear_refusal(tmp_path: Path) -> None:
    async with Client(_gateway(tmp_path), mode="legacy") as client:
        result = await client.call_tool("ev_trigger-sampling-request", {"prompt": "x"})
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert result.is_error and "sampling" in text
