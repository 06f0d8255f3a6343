"""The README's code runs as a reader would run it.

Python blocks run in an empty directory, each in its own process, except that a block whose first
line is ``# continues ...`` runs after the block before it (the README says so to the reader).
The finite ``toolkit`` commands of the shell blocks run from the repository root (they name
``examples/mcp.json``), and every JSON block parses.

``make`` lines are this suite and the demo (tested on its own); ``toolkit serve`` lines start
servers that run until stopped (the CLI's serve tests cover them).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
BLOCKS = BLOCK.findall((ROOT / "README.md").read_text())
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))


def _blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCKS if kind == lang]


def _programs() -> list[str]:
    """The Python blocks grouped into the programs a reader runs: a ``# continues`` block joins
    the program before it."""
    programs: list[str] = []
    for body in _blocks("python"):
        if body.lstrip().startswith("# continues") and programs:
            programs[-1] += "\n\n" + body
        else:
            programs.append(body)
    return programs


def _env() -> dict[str, str]:
    """The environment of a reader with the package installed: this interpreter first on PATH."""
    env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "COLUMNS": "120"}
    if "PYTHONPATH" in os.environ:  # a checkout under test, not the installed copy
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


PROGRAMS = _programs()


def test_the_readme_has_programs_and_the_tour_shows_its_errors(tmp_path: Path) -> None:
    assert len(PROGRAMS) >= 4
    done = subprocess.run(
        [sys.executable, "-c", PROGRAMS[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Error [INVALID_PARAMS]" in done.stdout
    assert "did you mean `tenant_code`?" in done.stdout
    assert "[('get_bin', 'EXECUTION_ERROR'), ('query_bins', None)]" in done.stdout


@pytest.mark.parametrize("index", range(1, len(PROGRAMS)))
def test_python_block_runs_in_an_empty_directory(index: int, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAMS[index]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        env=_env(),
    )
    assert done.returncode == 0, PROGRAMS[index][:300] + "\n" + done.stderr[-3000:]
    assert done.stdout.strip(), "each README program prints what it shows"
    assert list(tmp_path.iterdir()) == [], "a README program leaves no files behind"


def test_json_blocks_parse() -> None:
    blocks = _blocks("json")
    assert blocks
    for body in blocks:
        assert "mcpServers" in json.loads(body)


def _commands() -> list[str]:
    lines = [ln.split("#")[0].strip() for body in _blocks("bash") for ln in body.splitlines()]
    return [ln for ln in lines if ln.startswith("toolkit ") and not ln.startswith("toolkit serve")]


@pytest.mark.parametrize("command", _commands())
def test_shell_commands_run(command: str) -> None:
    args = shlex.split(command)
    done = subprocess.run(
        [TOOLKIT, *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
