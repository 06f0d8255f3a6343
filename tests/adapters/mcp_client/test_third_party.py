"""Servers written by others, installed from registries by tests/support/peers.sh."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.mcp_client import McpClientPool
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
