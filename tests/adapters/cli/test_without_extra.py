"""The ``toolkit`` command without its ``[cli]`` extra says so in one line, exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOLKIT = str(Path(sys.executable).with_name("toolkit"))

_BLOCK = """
import sys
for name in {hidden!r}:
    sys.modules[name] = None  # as if the distribution were not installed
"""


@pytest.mark.parametrize("hidden", [["typer", "rich"], ["rich"]])
def test_toolkit_without_the_cli_extra_names_it_in_one_line(
    hidden: list[str], tmp_path: Path
) -> None:
    # sitecustomize runs before the console script, in the script's own interpreter
    (tmp_path / "sitecustomize.py").write_text(_BLOCK.format(hidden=hidden))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [TOOLKIT, "inspect", "adapters.demo.warehouse"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: the toolkit command needs the 'cli' extra")
    assert f"missing: {', '.join(hidden)}" in line
    assert "pip install 'mcp-toolkit[cli]'" in line and "pip install -e '.[cli]'" in line


def test_the_blocking_really_hides_the_extra(tmp_path: Path) -> None:
    """Without the block the same command runs: the exit 2 above comes from the missing extra."""
    done = subprocess.run(
        [TOOLKIT, "inspect", "adapters.demo.warehouse"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "query_bins" in done.stdout
