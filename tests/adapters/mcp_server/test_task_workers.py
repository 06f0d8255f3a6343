"""Tasks shared by worker processes over one SQLite store, and owned by their callers.

Two workers (``tests/support/task_tools.py``, stateless HTTP on 127.0.0.1) share one task
store: a client creates tasks on one, goes away, and fetches every result from the other; a
worker killed with ``SIGKILL`` has its running tasks marked failed by the other once their
lease (2 s here) runs out. Kept small for a shared machine: five tasks of 1–3 s.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_client import cancel_task, create_task, get_task, list_tasks, task_result
from adapters.mcp_server import ERROR_META_KEY, build_server, http_app
from adapters.mcp_server._callers import load_callers
from tests.adapters.mcp_server.conftest import serving
from tests.support import task_tools
from toolkit.policy import CallRequest, Decision
from toolkit.tasks.runner import LOST_MESSAGE

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Worker:
    url: str
    process: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(db: Path, log: Path) -> Worker:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.task_tools", str(db), str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return Worker(f"http://127.0.0.1:{port}/mcp", process)
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"the worker did not start: {log.read_text()}")
        time.sleep(0.1)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[tuple[Worker, Worker]]:
    db = tmp_path / "tasks.db"
    first = _start(db, tmp_path / "first.log")
    second = _start(db, tmp_path / "second.log")
    try:
        yield first, second
    finally:
        for worker in (first, second):
            if worker.process.poll() is None:
                worker.process.terminate()
                worker.process.wait(timeout=20)


def _client(url: str, token: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30))
    return Client(streamable_http_client(url, http_client=http), mode="legacy")


async def _finished(client: Client, task_id: str, within: float) -> types.GetTaskResult:
    with anyio.fail_after(within):
        while True:
            task = await get_task(client, task_id)
            if task.status not in ("working", "input_required"):
                return task
            await anyio.sleep(0.2)


async def test_a_client_gets_every_result_from_the_other_worker(
    workers: tuple[Worker, Worker],
) -> None:
    first, second = workers
    seconds = [1.0, 1.5, 2.0, 2.5, 3.0]
    async with _client(first.url) as client:
        created = [
            await create_task(client, "export_report", {"rows": n, "seconds": s})
            for n, s in enumerate(seconds)
        ]
    # Gone from the first worker; back on the second, which never ran any of them.
    async with _client(second.url) as client:
        done = [await _finished(client, t.task_id, within=60) for t in created]
        results = [await task_result(client, t.task_id) for t in created]
    assert [t.status for t in done] == ["completed"] * len(seconds)
    assert [r.structured_content for r in results] == [{"rows": n} for n in range(len(seconds))]


async def test_a_killed_workers_tasks_end_failed_with_a_coded_message(
    workers: tuple[Worker, Worker],
) -> None:
    first, second = workers
    async with _client(first.url) as client:
        created = [
            await create_task(client, "export_report", {"rows": 1, "seconds": 30}) for _ in range(2)
        ]
        working = await get_task(client, created[0].task_id)
    os.kill(first.process.pid, signal.SIGKILL)
    first.process.wait(timeout=20)
    killed = time.monotonic()
    async with _client(second.url) as client:
        # The lease is 2 s; the bound is loose so that a loaded machine does not fail it.
        ended = [await _finished(client, t.task_id, within=15) for t in created]
        failed_after = time.monotonic() - killed
        result = await task_result(client, created[0].task_id)
    assert working.status == "working"
    assert [t.status for t in ended] == ["failed", "failed"]
    assert [t.status_message for t in ended] == [LOST_MESSAGE] * 2
    assert failed_after < 15
    assert result.is_error is True
    assert (result.meta or {})[ERROR_META_KEY]["code"] == "EXECUTION_ERROR"


ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789ab"


def _deploy_for_alice(request: CallRequest) -> Decision:
    if request.tool == "deploy":
        return "allow" if request.context.get("caller") == "alice" else "deny"
    return "allow"


@pytest.fixture
def with_callers(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("ALICE_TOKEN", ALICE)
    monkeypatch.setenv("BOB_TOKEN", BOB)
    callers = load_callers(
        {
            "callers": {
                "alice": {"token": "${ALICE_TOKEN}", "tenant": "acme"},
                "bob": {"token": "${BOB_TOKEN}", "tenant": "acme"},
            }
        }
    )
    registry = task_tools.build()
    registry.configure(policy=_deploy_for_alice)
    app = http_app(build_server(registry, callers=callers))
    with serving(app) as url:
        yield f"{url}/mcp"


async def test_another_caller_can_neither_see_read_nor_cancel_a_task(with_callers: str) -> None:
    async with _client(with_callers, ALICE) as alice:
        task = await create_task(alice, "deploy", {"service": "web", "seconds": 2})
        mine = await list_tasks(alice)
    async with _client(with_callers, BOB) as bob:
        theirs = await list_tasks(bob)
        refused = []
        for attempt in (get_task, task_result, cancel_task):
            with pytest.raises(MCPError) as error:
                await attempt(bob, task.task_id)
            refused.append((error.value.error.code, error.value.error.message))
    async with _client(with_callers, ALICE) as alice:
        still = await get_task(alice, task.task_id)
    assert [t.task_id for t in mine.tasks] == [task.task_id]
    assert theirs.tasks == []
    unknown = f"No task {task.task_id!r}: it does not exist, has expired, or was created by"
    assert all(code == types.INVALID_PARAMS and unknown in text for code, text in refused)
    assert still.status in ("working", "completed")  # bob's cancel changed nothing


async def test_a_tool_hidden_from_a_caller_is_not_found_as_a_task_either(with_callers: str) -> None:
    async with _client(with_callers, BOB) as bob:
        with pytest.raises(MCPError) as plain:
            await bob.call_tool("deploy", {"service": "web"})
        with pytest.raises(MCPError) as tasked:
            await create_task(bob, "deploy", {"service": "web"})
    assert "no tool named 'deploy'" in plain.value.error.message
    said = [e.value.error.message.rsplit("(ref", 1)[0] for e in (plain, tasked)]
    assert said[0] == said[1]  # the same words (each answer has its own reference)
