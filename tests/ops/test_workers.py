"""``toolkit serve --workers``: several processes answer, shut down gracefully, and log calls."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from adapters.mcp_server import ServeSettings, create_app
from toolkit.records.call_log import read_calls

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path(sys.executable).parent / "toolkit"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _call(base: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    with httpx.Client(base_url=base, headers=ACCEPT, timeout=30) as client:  # a new connection
        response = client.post("/mcp", json=body)
    response.raise_for_status()
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return dict(json.loads(text)["result"])


def _stop_tree(proc: subprocess.Popen[str]) -> None:
    """Kill the server and its workers if the test left them running."""
    if proc.poll() is not None:
        return
    tree = psutil.Process(proc.pid).children(recursive=True)
    proc.kill()
    proc.wait()
    for child in tree:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass


def _wait_healthy(base: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server did not answer /healthz within 120 s")


def test_two_workers_serve_log_and_finish_calls_in_flight(tmp_path: Path) -> None:
    port, db = _port(), tmp_path / "calls.db"
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(
        [
            str(TOOLKIT), "serve", "tests.support.served_registry:registry",
            "--transport", "http", "--port", str(port), "--workers", "2", "--call-log", str(db),
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True,
    )  # fmt: skip
    try:
        _wait_healthy(base, proc)
        workers = psutil.Process(proc.pid).children(recursive=True)
        assert len([w for w in workers if "spawn_main" in " ".join(w.cmdline())]) == 2

        answers = [_call(base, "add", {"a": i, "b": 1}) for i in range(12)]
        assert [a["content"][0]["text"] for a in answers] == [str(i + 1) for i in range(12)]

        # A call in flight when the server is told to stop still gets its answer.
        slow: dict[str, Any] = {}
        caller = threading.Thread(target=lambda: slow.update(_call(base, "slow", {"steps": 10})))
        caller.start()
        time.sleep(0.4)
        proc.send_signal(signal.SIGTERM)
        caller.join(timeout=30)
        assert slow.get("content", [{}])[0].get("text") == "done after 10 steps"
        assert proc.wait(timeout=30) == 0
    finally:
        _stop_tree(proc)

    calls = read_calls(db, limit=100)
    assert sorted(c.tool for c in calls) == ["add"] * 12 + ["slow"]
    # Over HTTP each call is logged under its peer (no trusted proxy header is configured here).
    assert {c.caller for c in calls} == {"127.0.0.1"}
    # Each worker also writes the one line per call that a one-process server prints.
    assert _call_lines(tmp_path / "stderr.txt") == {(c.call_id, c.tool) for c in calls}


def _call_lines(stderr: Path) -> set[tuple[str, str]]:
    """(ref, tool) of each ``call TOOL CODE N ms ref REF`` line a server wrote on stderr."""
    found = set()
    for line in stderr.read_text().splitlines():
        if line.startswith("call "):
            words = line.split()
            assert words[4] == "ms", line
            assert words[-2] == "ref", line
            found.add((words[-1], words[1]))
    return found


def test_the_call_log_keeps_the_line_per_call_on_stderr(tmp_path: Path) -> None:
    """``--call-log`` over HTTP runs the same app as the workers; the lines stay."""
    port, db = _port(), tmp_path / "calls.db"
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(
        [
            str(TOOLKIT), "serve", "tests.support.served_registry:registry",
            "--transport", "http", "--port", str(port), "--call-log", str(db),
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True,
    )  # fmt: skip
    try:
        _wait_healthy(base, proc)
        assert _call(base, "add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
        assert _call(base, "add", {"a": "x"})["isError"] is True
        proc.send_signal(signal.SIGTERM)
        # One uvicorn process shuts down gracefully, then re-raises the signal it caught.
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        _stop_tree(proc)
    calls = read_calls(db, limit=10)
    assert len(calls) == 2
    assert _call_lines(tmp_path / "stderr.txt") == {(c.call_id, c.tool) for c in calls}
    assert "call add INVALID_PARAMS " in (tmp_path / "stderr.txt").read_text()


def test_a_budget_over_http_runs_the_workers_app_and_counts_per_peer(tmp_path: Path) -> None:
    """``--budget`` over HTTP runs the same app as the workers, which tells callers apart."""
    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            str(TOOLKIT), "serve", "tests.support.served_registry",
            "--transport", "http", "--port", str(port), "--budget", "calls=2,window=600",
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_healthy(base, proc)
        answers = [_call(base, "add", {"a": i, "b": 1}) for i in range(3)]
    finally:
        _stop_tree(proc)
    assert [a.get("isError", False) for a in answers] == [False, False, True]
    assert answers[2]["content"][0]["text"].startswith("Error [BUDGET_EXCEEDED] in tool 'add'")


def test_the_factory_explains_a_missing_target(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLKIT_TARGET", raising=False)
    with pytest.raises(ValueError, match="Set TOOLKIT_TARGET"):
        create_app()
    with pytest.raises(ValueError, match=r"\$TOOLKIT_PAGE_SIZE='ten' is not a whole number"):
        ServeSettings.from_env({"TOOLKIT_TARGET": "x", "TOOLKIT_PAGE_SIZE": "ten"})
    settings = ServeSettings(target="m:r", allowed_hosts=("a", "b"), page_size=5, call_log="c.db")
    assert ServeSettings.from_env(settings.to_env()) == settings


def test_workers_refuse_what_cannot_scale() -> None:
    done = subprocess.run(
        [str(TOOLKIT), "serve", "tests.support.served_registry:registry", "--workers", "2"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--workers and --metrics need --transport http" in done.stderr
    done = subprocess.run(
        [
            str(TOOLKIT), "serve", "tests.support.served_registry:registry", "--transport",
            "http", "--workers", "2", "--stateful",
        ],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--workers needs stateless HTTP" in done.stderr
