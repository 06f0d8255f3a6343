"""A client cancelling a call of a remote tool through our gateway cancels it on the remote
server too: ``notifications/cancelled`` travels on, and the remote tool's own cleanup runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from adapters.mcp_server import build_server
from adapters.sources import Sources, open_sources
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]


async def test_cancelling_a_gateway_call_cancels_it_on_the_remote_server(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled.txt"
    config = tmp_path / "mcp.json"
    remote = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.support.served_registry:registry"],
        "cwd": str(ROOT),
        "env": {"PYTHONPATH": str(ROOT), "SERVED_REGISTRY_CANCEL_MARKER": str(marker)},
    }
    config.write_text(json.dumps({"mcpServers": {"remote": remote}}))
    registry = ToolRegistry()
    async with open_sources(registry, Sources(config=str(config))) as [remote_servers]:
        assert "remote_slow" in remote_servers.names
        progressed = anyio.Event()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            progressed.set()

        async with Client(build_server(registry), mode="legacy") as client:
            async with anyio.create_task_group() as group:

                async def call() -> None:
                    await client.call_tool(
                        "remote_slow", {"steps": 300}, progress_callback=on_progress
                    )

                group.start_soon(call)
                with anyio.fail_after(20):
                    await progressed.wait()  # the remote tool is running
                group.cancel_scope.cancel()  # our client sends notifications/cancelled
            with anyio.fail_after(10):
                while not marker.exists():
                    await anyio.sleep(0.05)
    assert marker.read_text()  # the remote tool saw the cancellation, with its call id
