"""What a person reads from ``--help`` and from a mistyped TARGET or server name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))


def _toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLKIT, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "160"},
    )


@pytest.mark.parametrize(
    ("command", "flag", "valued"),
    [
        (["call"], "--yes", None),
        (["mcp", "call"], "--yes", None),
        (["serve"], "--allow-destructive", "--port"),
        ([], "--verbose", "--log-level"),
    ],
)
def test_help_shows_no_type_after_flags(command: list[str], flag: str, valued: str | None) -> None:
    done = _toolkit(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert flag in done.stdout
    assert "<bool>" not in done.stdout
    if valued is not None:  # an option that takes a value still says what kind
        [line] = [ln for ln in done.stdout.splitlines() if f" {valued} " in ln]
        assert "<int>" in line or "<str>" in line


def test_a_target_with_two_colons_gets_the_syntax() -> None:
    done = _toolkit("call", "app:py:add", "add")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "TARGET 'app:py:add' has 2 colons; it takes at most one" in done.stderr
    assert "app.py:add" in done.stderr


def test_an_unknown_server_is_named_without_stray_quotes() -> None:
    done = _toolkit("mcp", "call", "examples/mcp.json", "other", "x")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: no MCP server 'other' in the config; known: carriers"
