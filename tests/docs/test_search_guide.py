"""docs/search.md runs as a reader would run it, and prints what it shows.

Python blocks run in their own process; a block whose first line is ``# continues ...`` runs
after the blocks before it. Every ``# ...`` line of a program (but that first line) is a line
it prints, in order.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "search.md").read_text(), re.DOTALL)


def _programs() -> list[str]:
    programs: list[str] = []
    for body in BLOCKS:
        if body.lstrip().startswith("# continues") and programs:
            programs.append(programs[-1] + "\n\n" + body)
        else:
            programs.append(body)
    return programs


def _printed(program: str) -> list[str]:
    lines = program.splitlines()
    return [ln[2:] for ln in lines if ln.startswith("# ") and not ln.startswith("# continues")]


@pytest.mark.parametrize("program", _programs(), ids=lambda p: str(len(p)))
def test_the_guide_prints_what_it_shows(program: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == _printed(program)


def test_the_guide_has_its_four_programs() -> None:
    assert len(_programs()) == 4
