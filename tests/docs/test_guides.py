"""The Python blocks of the guides under docs/ run as written, and show their real output.

A block whose first line is ``# continues ...`` runs after the block before it. A ``# ...``
comment right under a ``print(...)`` line is that print's output: the lines printed must equal
those comments, in order.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDES = ["EXISTING_CODE.md", "LOCAL_MODELS.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _programs(guide: str) -> list[str]:
    programs: list[str] = []
    for body in BLOCK.findall((ROOT / "docs" / guide).read_text()):
        if body.lstrip().startswith("# continues") and programs:
            programs[-1] += "\n\n" + body
        else:
            programs.append(body)
    return programs


def _shown(program: str) -> list[str]:
    """The outputs the program shows as comments under its prints."""
    lines = program.splitlines()
    shown = []
    for before, line in itertools.pairwise(lines):
        if before.strip().startswith("print(") and line.strip().startswith("# "):
            shown.append(line.strip()[2:])
    return shown


CASES = [(guide, i, p) for guide in GUIDES for i, p in enumerate(_programs(guide))]


@pytest.mark.parametrize(("guide", "index", "program"), CASES, ids=lambda v: str(v)[:20])
def test_a_guide_program_prints_what_it_shows(
    guide: str, index: int, program: str, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{guide} program {index}:\n{done.stderr}"
    assert done.stdout.splitlines() == _shown(program), f"{guide} program {index}"
