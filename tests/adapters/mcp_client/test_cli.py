"""The ``toolkit mcp`` commands against a real stdio server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli._mcp import mcp_app
from tests.adapters.mcp_client.conftest import SERVERS, stdio


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


def test_call_shows_every_block_it_got(tmp_path: Path, peers: Path) -> None:
    config = tmp_path / "mcp.json"
    command = str(peers / "node_modules/.bin/mcp-server-everything")
    config.write_text(json.dumps({"mcpServers": {"ev": {"command": command}}}))
    called = CliRunner().invoke(
        mcp_app, ["call", str(config), "ev", "get-tiny-image"], terminal_width=200
    )
    assert called.exit_code == 0, called.output
    assert "[image: image/png," in called.output


def test_login_refuses_a_server_without_oauth(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"echo": stdio()}}))
    result = CliRunner().invoke(mcp_app, ["login", str(config), "echo"])
    assert result.exit_code == 1
    assert "not configured with OAuth" in result.output


def test_a_server_question_is_asked_at_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import anyio

    from adapters.cli._approval import TerminalApprover

    # One answer per field, and no "Send these answers?" after them.
    monkeypatch.setattr("sys.stdin", io.StringIO("Ada\n\ny\n"))
    schema = {
        "properties": {
            "name": {"type": "string", "title": "Your name"},
            "age": {"type": "integer", "default": 30},
            "ok": {"type": "boolean"},
        }
    }
    answer = anyio.run(TerminalApprover(yes=False).answer_server, "ev", "Who are you?", schema)
    assert answer.action == "accept"
    assert dict(answer.content) == {"name": "Ada", "age": 30, "ok": True}
