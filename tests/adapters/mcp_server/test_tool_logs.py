"""A tool's own ``logging.getLogger("toolkit.<anything>")`` records reach the calling client,
sync or async tool, before the call's result, at the level the client asked for."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

ROOT = Path(__file__).resolve().parents[3]


async def test_a_tools_own_records_reach_the_client_of_toolkit_serve() -> None:
    received: list[tuple[str, str, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append((params.level, str(params.data), params.logger))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "tests.support.logging_tools"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    async with Client(params, mode="legacy", logging_callback=on_log) as client:
        await client.set_logging_level("info")
        await client.call_tool("sync_pick", {"order_id": 7})
        after_sync = list(received)
        await client.call_tool("async_pick", {"order_id": 8})
        after_async = list(received)
        await client.set_logging_level("warning")
        await client.call_tool("async_pick", {"order_id": 9})
    # Each call's records arrived before its result; DEBUG stays out, the call summary too.
    assert after_sync == [
        ("info", "picking order 7", "toolkit.shop.orders"),
        ("warning", "order 7 is late", "toolkit.shop.orders"),
    ]
    assert after_async[2:] == [
        ("info", "picking order 8", "toolkit.shop.orders"),
        ("warning", "order 8 is late", "toolkit.shop.orders"),
    ]
    assert received[4:] == [("warning", "order 9 is late", "toolkit.shop.orders")]
