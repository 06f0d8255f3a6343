"""``toolkit mcp call --task``: a long remote tool runs as a task, with a status line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))


def _call(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    served = {
        "command": TOOLKIT,
        "args": ["serve", "tests.support.task_tools:registry"],
        "cwd": str(ROOT),
        "env": {"PYTHONPATH": str(ROOT)},
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"jobs": served}}))
    return subprocess.run(
        [TOOLKIT, "mcp", "call", str(config), "jobs", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_task_shows_its_status_line_then_its_result(tmp_path: Path) -> None:
    done = _call(tmp_path, "export_report", '{"rows": 8, "seconds": 1.5}', "--task")
    assert done.returncode == 0, done.stderr
    assert "task: export_report started" in done.stderr
    assert "task: exported " in done.stderr
    assert '"rows": 8' in done.stdout


def test_a_tool_that_is_no_task_runs_plainly_with_a_note(tmp_path: Path) -> None:
    done = _call(tmp_path, "quick_count", '{"text": "a b c"}', "--task")
    assert done.returncode == 0, done.stderr
    assert "does not run quick_count as a task: a plain call" in done.stderr
    assert "3" in done.stdout
