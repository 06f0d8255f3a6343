"""The README's code runs: Python blocks in order (one process), the finite ``toolkit``
commands of the shell blocks, and every JSON block parses.

``make`` lines are this suite and the demo (tested on its own); ``toolkit serve`` lines start
servers that run until stopped (the CLI's serve tests cover them).
"""

from __future__ import annotations

import json
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


def test_python_blocks_run_in_order() -> None:
    code = "\n\n".join(_blocks("python"))
    assert code.count("import") >= 3
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Error [INVALID_PARAMS]" in done.stdout
    assert "did you mean `tenant_code`?" in done.stdout


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
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
