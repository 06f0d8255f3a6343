"""The MCP server answers hostile input with protocol errors and keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from toolkit import ToolRegistry

ROOT = Path(__file__).resolve().parents[2]
NOISY = ROOT / "tests" / "support" / "noisy_stdio_server.py"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_http_server_answers_deeply_nested_json_with_a_parse_error() -> None:
    with serving(http_app(build_server(ToolRegistry(), name="deep"))) as url:
        deep = httpx.post(f"{url}/mcp", content=b"[" * 100_000, headers=HEADERS, timeout=10)
        after = httpx.post(f"{url}/mcp", json={**INIT, "id": 9}, headers=HEADERS, timeout=10)
    assert deep.status_code == 400
    assert deep.json()["error"]["code"] == -32700
    assert after.status_code == 200
    assert after.json()["id"] == 9


def _stdio(lines: list[bytes], **env: str) -> list[dict[str, object]]:
    """Send ``lines`` then a ping with id ``"last"``; the replies up to its answer."""
    proc = subprocess.Popen(
        [sys.executable, str(NOISY)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )
    assert proc.stdin is not None and proc.stdout is not None
    last = b'{"jsonrpc":"2.0","id":"last","method":"ping"}'
    proc.stdin.write(b"\n".join([*lines, last]) + b"\n")
    proc.stdin.flush()
    replies: list[dict[str, object]] = []
    try:
        for raw in proc.stdout:
            if raw.startswith(b'{"jsonrpc"'):
                replies.append(json.loads(raw))
                if replies[-1]["id"] == "last":
                    break
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return replies


def test_stdio_server_answers_malformed_requests_that_carry_an_id() -> None:
    replies = _stdio(
        [
            json.dumps(INIT).encode(),
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"oops"}',
            b'{"jsonrpc":"2.0","id":"two","method":5}',
            b"[" * 100_000,
            b'{"jsonrpc":"2.0","id":3,"method":"ping"}',
        ]
    )
    by_id = {r["id"]: r for r in replies}
    assert by_id[1]["error"]["code"] == -32600  # type: ignore[index]
    assert by_id["two"]["error"]["code"] == -32600  # type: ignore[index]
    assert by_id[None]["error"]["code"] == -32700  # type: ignore[index]
    assert by_id[3]["result"] == {}


def test_stdio_server_survives_an_oversized_line() -> None:
    huge = b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"' + b"y" * 300_000 + b'"}}'
    replies = _stdio(
        [json.dumps(INIT).encode(), huge, b'{"jsonrpc":"2.0","id":3,"method":"ping"}'],
        TOOLKIT_STDIO_MAX_LINE="100000",
    )
    ids = [r["id"] for r in replies]
    assert 0 in ids and 3 in ids
    assert 2 not in ids


def test_depth_check_ignores_brackets_inside_strings() -> None:
    from adapters.mcp_server._parse_guard import too_deep

    assert not too_deep(json.dumps({"text": "[" * 1000 + '\\"{' * 500}).encode())
    assert too_deep(b"[" * 300 + b"]" * 300)
    assert not too_deep(b"[" * 200 + b"]" * 200)


@pytest.mark.parametrize(
    ("name", "warned"),
    [("TOOLKIT_STDIO_MAX_LINE", False), ("MCP_TOOLKIT_STDIO_MAX_LINE", True)],
)
def test_the_line_limit_is_a_toolkit_setting_and_its_old_name_still_works(
    name: str, warned: bool
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("STDIO_MAX_LINE")}
    done = subprocess.run(
        [sys.executable, "-c", "from adapters.mcp_server import _pipes; print(_pipes._MAX_LINE)"],
        env={**env, "PYTHONPATH": str(ROOT), name: "4321"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4321"
    assert ("now called TOOLKIT_STDIO_MAX_LINE" in done.stderr) is warned
