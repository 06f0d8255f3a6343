"""The protocol benchmark's ``--quick`` run goes to the end and prints every row (figures not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_quick_run_prints_every_row() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_action_xml.py"), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for row in (
        "parse a typical answer",
        "parse a 1 MB answer",
        "render the prompt for 50 tools",
        "ElementTree.fromstring",
        "ours / anchor",
    ):
        assert row in done.stdout, f"{row!r} missing from:\n{done.stdout}"
