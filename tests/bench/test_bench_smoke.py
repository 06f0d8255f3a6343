"""``bench/bench_core.py --quick`` runs to the end and prints every row (figures are not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_core_quick_prints_every_row() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_core.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for row in (
        "decorate 100 functions",
        "build 100 input schemas",
        "decorate + build",
        "call sync tool: call_sync / invoke",
        "call async tool: await call / ainvoke",
        "await call of a sync tool (worker thread)",
    ):
        assert row in done.stdout, f"{row!r} missing from:\n{done.stdout}"
    assert "µs CPU" in done.stdout and "langchain" in done.stdout
