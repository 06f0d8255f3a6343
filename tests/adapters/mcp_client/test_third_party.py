"""Servers written by others, installed from registries by tests/support/peers.sh."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from adapters.mcp_client import McpClientPool
from toolkit.calls.interaction import Elicitation
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode
from toolkit.registry import ToolRegistry

pytestmark = pytest.mark.anyio


async def test_server_everything_over_stdio_and_mcp_server_time(peers: Path) -> None:
    config = {
        # stdio only: its HTTP mode listens on all interfaces.
        "everything": {"command": str(peers / "node_modules/.bin/mcp-server-everything")},
        "time": {
            "command": str(peers / "time-venv/bin/mcp-server-time"),
            "args": ["--local-timezone", "UTC"],
        },
    }
    async with McpClientPool(config, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        echo = await registry.call("everything_echo", {"message": "from afar"})
        bad = await registry.call("everything_echo", {"msg": "typo"})
        now = await registry.call("time_get_current_time", {"timezone": "Europe/Paris"})
    assert "from afar" in echo.content
    assert bad.code == ErrorCode.INVALID_PARAMS and "message" in bad.content
    assert now.is_error is False and "Europe/Paris" in now.content


async def test_a_third_party_task_tool_runs_as_a_task_with_its_status(peers: Path) -> None:
    # server-everything offers simulate-research-query only as a task (taskSupport required).
    everything = str(peers / "node_modules/.bin/mcp-server-everything")
    heard: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    config = {"everything": {"command": everything, "protocol": "legacy"}}
    async with McpClientPool(config, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        name = "everything_simulate-research-query"
        support = registry.get(name).spec.options.task_support
        result = await registry.call(name, {"topic": "tides"}, ToolContext(progress=progress))
    assert support == "required"
    assert result.is_error is False, result.content
    assert "Research Report: tides" in result.content
    assert any(m and m.endswith("...") for m in heard)  # its stage messages, as progress


async def test_a_third_party_task_that_needs_input_asks_through_the_pool(peers: Path) -> None:
    # An ambiguous query makes the task input_required; the server asks over tasks/result.
    everything = str(peers / "node_modules/.bin/mcp-server-everything")
    asked: list[str] = []

    async def ask_user(server: str, message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append(message)
        field = next(iter(schema.get("properties", {})))
        options = schema["properties"][field].get("oneOf") or [{"const": "technical"}]
        return Elicitation("accept", {field: options[0]["const"]})

    config = {"everything": {"command": everything, "protocol": "legacy"}}
    async with McpClientPool(config, grace=0.5, elicitation=ask_user) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        result = await registry.call(
            "everything_simulate-research-query", {"topic": "python", "ambiguous": True}
        )
    assert result.is_error is False, result.content
    assert len(asked) == 1 and "multiple interpretations" in asked[0]
    assert "Research Report: python (" in result.content
