"""``toolkit mcp call`` against a served registry reads like a local ``toolkit call``: a
destructive tool asks on a terminal or runs with ``--yes``, and the result is what the model
reads."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
DELETE = ["delete_bin", '{"code": "A-02-01"}']


def _config(tmp_path: Path, target: str, *serve_args: str) -> Path:
    served = {"command": TOOLKIT, "args": ["serve", target, *serve_args], "cwd": str(ROOT)}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"wh": served}}))
    return path


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


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    """A config serving the demo warehouse, whose operator allows delete_bin."""
    return _config(
        tmp_path, "adapters.demo.warehouse_app:registry", "--allow-destructive", "delete_bin"
    )


def test_yes_approves_a_destructive_remote_tool(warehouse: Path) -> None:
    done = _toolkit("mcp", "call", str(warehouse), "wh", *DELETE, "--yes")
    assert done.returncode == 0, done.stderr
    assert "Bin A-02-01 deleted." in done.stdout


def test_without_a_terminal_or_yes_nothing_runs_and_it_says_how(warehouse: Path) -> None:
    done = _toolkit("mcp", "call", str(warehouse), "wh", *DELETE)
    assert done.returncode == 1
    assert "not run: delete_bin is destructive" in done.stderr
    assert "Add --yes" in done.stderr
    assert "deleted" not in done.stdout + done.stderr


def _on_a_terminal(args: list[str], *steps: tuple[bytes, bytes, float]) -> str:
    """Run ``toolkit`` on a pseudo-terminal and return all it wrote.

    Each step is (what to wait for, what to type, seconds to wait before typing it), in order.
    """
    main, side = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "TERM": "dumb"}
    process = subprocess.Popen(
        [TOOLKIT, *args], cwd=ROOT, stdin=side, stdout=side, stderr=side, env=env
    )
    os.close(side)
    seen, todo = b"", list(steps)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main, 4096)
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                seen += chunk
            if todo and todo[0][0] in seen:
                _, typed, pause = todo.pop(0)
                time.sleep(pause)
                os.write(main, typed)
            if process.poll() is not None and not ready:
                break
        assert process.wait(timeout=30) is not None
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    assert not todo, seen.decode(errors="replace")
    return seen.decode(errors="replace")


@pytest.mark.parametrize(("answer", "shown"), [("y", "Bin A-02-01 deleted."), ("n", "declined")])
def test_on_a_terminal_it_asks_first(warehouse: Path, answer: str, shown: str) -> None:
    seen = _on_a_terminal(
        ["mcp", "call", str(warehouse), "wh", *DELETE], (b"Run it with", answer.encode() + b"\n", 0)
    )
    assert "delete_bin is destructive. Run it with" in seen
    assert shown in seen


def test_a_remote_call_prints_what_a_local_call_prints(tmp_path: Path) -> None:
    """The model reads ``5``, not the ``{"result": 5}`` that travels as structured content."""
    target = "tests.toolkit.tools_for_tests"
    local = _toolkit("call", target, "add", '{"a": 2, "b": 3}')
    remote = _toolkit(
        "mcp", "call", str(_config(tmp_path, target)), "wh", "add", '{"a": 2, "b": 3}'
    )
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    assert '"result"' not in remote.stdout

    def body(out: str) -> list[str]:
        return [ln.strip("│ ") for ln in out.splitlines() if ln.startswith("│")]

    assert body(remote.stdout) == body(local.stdout) == ["5"]
