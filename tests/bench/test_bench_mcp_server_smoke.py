"""``bench/bench_mcp_server.py --quick`` runs to the end and prints every row (figures are not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_mcp_server_quick_prints_every_row() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_mcp_server.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for row in (
        "stdio auto",
        "stdio legacy",
        "http auto",
        "http legacy",
        "http auto, MCPServer json_response",
        "sync tool, auto",
        "async tool, legacy",
        "build server",
        "tools/list time",
        "tools/list size",
    ):
        assert row in done.stdout, f"{row!r} missing from:\n{done.stdout}"
    assert "MCPServer calls/s" in done.stdout and "server CPU" in done.stdout
