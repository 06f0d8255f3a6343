"""Fixtures for remote-tool tests: real MCP servers as subprocesses and on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

SERVERS = Path(__file__).resolve().parents[2] / "support" / "mcp_servers"
ROOT = Path(__file__).resolve().parents[3]
PEERS = ROOT / ".peers"


def stdio(script: str = "echo_server.py", *args: str, **extra: Any) -> dict[str, Any]:
    """A stdio server config for one of our test servers."""
    return {"command": sys.executable, "args": [str(SERVERS / script), *args], **extra}


def descendants() -> set[int]:
    """Pids of every live (non-zombie) descendant of this test process."""
    me = psutil.Process()
    return {p.pid for p in me.children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"test HTTP server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("test HTTP server did not start within 20 s")


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """Our test server over streamable HTTP; yields its URL. Token required: ``s3cret-token``."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(SERVERS / "echo_server.py"),
            "--http",
            str(port),
            "--token",
            "s3cret-token",
        ]
    )
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # a call still in flight holds uvicorn's shutdown
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def peers() -> Path:
    """The third-party servers installed by tests/support/peers.sh; fails clearly if missing."""
    needed = [
        PEERS / "node_modules/.bin/mcp-server-everything",
        PEERS / "time-venv/bin/mcp-server-time",
    ]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        pytest.fail(
            f"third-party MCP servers missing ({', '.join(missing)}); run tests/support/peers.sh"
        )
    return PEERS


@pytest.fixture
def http_config(http_server: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A config for ``http_server``: its token from ``${TEST_MCP_TOKEN}``, tenant as a header."""
    monkeypatch.setenv("TEST_MCP_TOKEN", "s3cret-token")
    return {
        "url": http_server,
        "auth": {"type": "bearer", "token": "${TEST_MCP_TOKEN}"},
        "context_headers": {"tenant": "x-tenant"},
    }
