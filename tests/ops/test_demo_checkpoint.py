"""``toolkit demo --checkpoint``: the approval a run waits for is answered by a later run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path(sys.executable).parent / "toolkit"


def _demo(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["COLUMNS"] = "160"
    done = subprocess.run(
        [str(TOOLKIT), "demo", "--no-remote", *args],
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for frame in "│┃":
        text = text.replace(frame, " ")
    return " ".join(text.split())


def test_a_later_run_answers_the_saved_approval(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    first = _demo("--checkpoint", str(db))
    assert "approval needed" in first
    assert f"waiting for approval: the run is saved in {db}" in first
    assert "delete_bin ✗" not in first and "delete_bin ✓" not in first

    second = _demo("--checkpoint", str(db), "--yes")
    assert f"resuming the run saved in {db}" in second
    assert "approved (--yes)" in second and "delete_bin ✓" in second
    assert "Bin A-02-01 is deleted." in second
    assert "Traceback" not in second
