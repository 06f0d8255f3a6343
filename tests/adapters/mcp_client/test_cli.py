"""The ``toolkit mcp`` commands against a real stdio server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from adapters.mcp_client._cli import mcp_app
from tests.adapters.mcp_client.conftest import SERVERS


def test_list_call_and_test_commands(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    servers = {
        "echo": {"command": sys.executable, "args": [str(SERVERS / "echo_server.py")]},
        "broken": {
            "command": sys.executable,
            "args": [str(SERVERS / "echo_server.py"), "--fault", "exit"],
            "retries": 0,
        },
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    runner = CliRunner()
    listed = runner.invoke(mcp_app, ["list", str(config), "echo"], terminal_width=200)
    assert listed.exit_code == 0, listed.output
    # The names `mcp call` accepts, not the prefixed ones a pool registers.
    assert "│ add " in listed.output and "echo_add" not in listed.output
    called = runner.invoke(mcp_app, ["call", str(config), "echo", "add", '{"a": 2, "b": 3}'])
    assert called.exit_code == 0 and "5" in called.output
    tested = runner.invoke(mcp_app, ["test", str(config)], terminal_width=300)
    assert tested.exit_code == 1
    assert "2026-07-28" in tested.output and "exited with code 2" in tested.output
