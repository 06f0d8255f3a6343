"""Servers started with workers keep the one-process server's HTTP bounds.

``toolkit serve --workers`` and the documented ``uvicorn --factory ... --http
adapters.mcp_server:BoundedHttpProtocol`` command (the container's) both run our protocol: a
request head over 16 KiB is answered 400 and its connection closed, and calls are answered.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

from tests.ops.test_workers import ROOT, TOOLKIT, _call, _port, _stop_tree, _wait_healthy

TARGET = "tests.support.served_registry:registry"


def _oversized_head_reply(port: int) -> bytes:
    filler = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 100) for i in range(200))
    request = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%s"
        b"Content-Length: 2\r\n\r\n{}" % filler
    )
    reply = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        with suppress(ConnectionResetError, BrokenPipeError):
            sock.sendall(request)
            while chunk := sock.recv(65536):
                reply += chunk
    return reply


def _check(command: list[str], port: int, env: dict[str, str], stderr: Path) -> None:
    with stderr.open("w") as errors:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True
        )
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_healthy(base, proc)
        assert _call(base, "add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
        reply = _oversized_head_reply(port)
        assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
        assert _call(base, "add", {"a": 1, "b": 1})["content"][0]["text"] == "2"
    finally:
        _stop_tree(proc)


def test_toolkit_serve_workers_bound_a_request_head(tmp_path: Path) -> None:
    port = _port()
    command = [
        str(TOOLKIT), "serve", TARGET,
        "--transport", "http", "--port", str(port), "--workers", "2",
    ]  # fmt: skip
    _check(command, port, {**os.environ, "PYTHONPATH": str(ROOT)}, tmp_path / "stderr.txt")


def test_the_documented_uvicorn_command_bounds_a_request_head(tmp_path: Path) -> None:
    port = _port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "adapters.mcp_server:create_app",
        "--http", "adapters.mcp_server:BoundedHttpProtocol", "--limit-concurrency", "4096",
        "--timeout-keep-alive", "5", "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TOOLKIT_TARGET": TARGET}
    _check(command, port, env, tmp_path / "stderr.txt")
