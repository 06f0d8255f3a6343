"""Fixtures for the hardening suite: a misbehaving raw JSON-RPC server and disk counters."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

SERVER = Path(__file__).resolve().parent / "misbehaving_server.py"


def misbehaving(log: Path, *flags: str, **extra: Any) -> dict[str, Any]:
    """A pool config (one server ``m``) for the misbehaving server logging under ``log``."""
    return {"m": {"command": sys.executable, "args": [str(SERVER), str(log), *flags], **extra}}


def runs(log: Path, tool: str) -> int:
    """How many times ``tool`` started on the server (counted on disk)."""
    path = log / f"{tool}.log"
    return path.read_text().count("ran") if path.exists() else 0


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """A fresh directory where the server counts its calls."""
    return tmp_path
