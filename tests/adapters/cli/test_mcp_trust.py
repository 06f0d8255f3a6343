"""``toolkit mcp diff`` and ``toolkit mcp trust`` against a server that changes its tools:
pin, see nothing to review, see a rug pull old against new with its hidden characters shown
escaped, find the changed tool DENIED, accept one tool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.poisoning import BASE, poisoned_listing

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
SHIFTY = ROOT / "tests/support/mcp_servers/shifty_server.py"


def _toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLKIT, *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_trust_then_diff_then_accept_one_tool(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": list(BASE.values())}))
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(SHIFTY), str(tools)]}
    config.write_text(json.dumps({"mcpServers": {"s": server}}))
    lock = tmp_path / "mcp.lock.json"

    unpinned = _toolkit("mcp", "diff", str(config))
    assert unpinned.returncode == 1, unpinned.stderr
    assert "s/search: not in the lock" in unpinned.stdout

    trusted = _toolkit("mcp", "trust", str(config))
    assert trusted.returncode == 0, trusted.stderr
    assert f"the lock is {lock}" in trusted.stdout
    assert set(json.loads(lock.read_text())["servers"]["s"]) == {*BASE, "announce", "crash"}
    assert _toolkit("mcp", "diff", str(config)).stdout.startswith("No differences")

    tools.write_text(json.dumps({"tools": poisoned_listing()}))
    drift = _toolkit("mcp", "diff", str(config), "s")
    assert drift.returncode == 1
    out = drift.stdout
    assert "s/add: changed since it was trusted (inputSchema.properties.sidenote added)" in out
    assert '-  "description": "Greet someone.",' in out
    assert '+  "description": "Greet\\u200b some\\u200cone.",' in out  # shown, escaped
    assert "\u200b" not in out and "\u202e" not in out
    assert "s/list: removed by the server (needs no approval)" in out
    assert "s/send_email: new: listed after the server was trusted" in out

    denied = _toolkit("mcp", "call", str(config), "s", "add", '{"a": 1, "b": 2}')
    assert denied.returncode == 1
    assert "DENIED" in denied.stderr and "sidenote added" in denied.stderr
    assert not tools.with_suffix(".calls").exists()

    one = _toolkit("mcp", "trust", str(config), "s", "add")
    assert one.returncode == 0, one.stderr
    assert "accepted s/add: changed" in one.stdout
    called = _toolkit("mcp", "call", str(config), "s", "add", '{"a": 1, "b": 2}')
    assert called.returncode == 0, called.stderr
    assert "add ran" in called.stdout
    left = _toolkit("mcp", "diff", str(config), "s")
    assert "s/add:" not in left.stdout and "s/search: changed" in left.stdout


def test_trusting_a_tool_the_server_does_not_list_names_its_tools(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [BASE["add"]]}))
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": [str(SHIFTY), str(tools)]}
    config.write_text(json.dumps({"mcpServers": {"s": server}}))
    refused = _toolkit("mcp", "trust", str(config), "s", "nope")
    assert refused.returncode == 2
    assert "server 's' lists no tool 'nope'; its tools: add, announce, crash" in refused.stderr
    assert not (tmp_path / "mcp.lock.json").exists()
