"""A bare ``python`` in a config runs the interpreter running mcp-toolkit, and says so."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.mcp_client import McpClientPool

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))

pytestmark = pytest.mark.anyio


def _wrong_python(folder: Path) -> str:
    """A ``python`` first on PATH that is not ours (as a system Python without mcp would be)."""
    for name in ("python", "python3"):
        fake = folder / name
        fake.write_text("#!/bin/sh\necho 'the wrong python' >&2\nexit 3\n")
        fake.chmod(0o755)
    return f"{folder}:/usr/bin:/bin"


async def test_a_bare_python_is_the_toolkits_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", _wrong_python(tmp_path))
    config = {
        "command": "python",
        "args": ["-m", "adapters.demo.carriers_server"],
        "cwd": str(ROOT),
    }
    caplog.set_level(logging.INFO, logger="adapters.mcp_client")
    async with McpClientPool({"carriers": config}) as pool:
        names = [tool.name for tool in await pool.tools("carriers")]
    assert "carriers_quote_shipment" in names
    said = [r.getMessage() for r in caplog.records if "interpreter running" in r.getMessage()]
    assert said == [
        f"MCP server 'carriers': 'python' in its config runs {sys.executable}, "
        "the interpreter running mcp-toolkit"
    ]


def test_the_example_config_works_without_the_venv_on_path(tmp_path: Path) -> None:
    """``toolkit mcp test examples/mcp.json`` as a person runs it, venv not activated."""
    env = {**os.environ, "PATH": _wrong_python(tmp_path)}
    done = subprocess.run(
        [TOOLKIT, "-v", "mcp", "test", "examples/mcp.json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the interpreter running mcp-toolkit" in done.stderr
