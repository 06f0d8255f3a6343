"""The task stores (memory, SQLite) and the runner's leases, in one process."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from toolkit.tasks.runner import LOST_MESSAGE, TaskOutcome, TaskReporter, TaskRunner
from toolkit.tasks.store import (
    MemoryTaskStore,
    PostgresTaskStore,
    SqliteTaskStore,
    StoredTask,
    TaskStore,
)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TaskStore]:
    if request.param == "memory":
        yield MemoryTaskStore()
    elif request.param == "sqlite":
        yield SqliteTaskStore(str(tmp_path / "tasks.db"))
    else:  # a throwaway cluster (tests/conftest.py); skipped where none can be started
        yield PostgresTaskStore(request.getfixturevalue("postgres_url"))


def _task(task_id: str, owner: str = "caller=alice", **changes: object) -> StoredTask:
    now = time.time()
    fields: dict[str, object] = {
        "task_id": task_id,
        "owner": owner,
        "tool": "export",
        "status": "working",
        "status_message": None,
        "created_at": now,
        "updated_at": now,
        "ttl_ms": 60_000,
        "poll_interval_ms": 500,
        "worker": "w1",
        "lease_until": now + 10,
    }
    fields.update(changes)
    return StoredTask(**fields)  # type: ignore[arg-type]


def test_a_task_is_read_only_by_its_owner(store: TaskStore) -> None:
    store.create(_task("t1"))
    assert store.get("t1", "caller=alice") is not None
    assert store.get("t1", "caller=bob") is None
    assert store.tasks("caller=bob", 0, 10) == []


def test_finished_is_final_and_keeps_its_result(store: TaskStore) -> None:
    store.create(_task("t1"))
    working = store.update("t1", "working", "half done")
    done = store.update("t1", "completed", None, result={"content": [], "isError": False})
    late = store.update("t1", "failed", "too late")
    kept = store.get("t1", "caller=alice")
    assert working is not None and working.status_message == "half done"
    assert done is not None and done.status == "completed"
    assert late is None
    assert kept is not None and kept.status == "completed"
    assert kept.result == {"content": [], "isError": False}


def test_tasks_are_listed_newest_first_in_pages(store: TaskStore) -> None:
    for n in range(5):
        store.create(_task(f"t{n}", created_at=1000.0 + n, ttl_ms=None))
    first, second = store.tasks("caller=alice", 0, 3), store.tasks("caller=alice", 3, 3)
    assert [t.task_id for t in first + second] == ["t4", "t3", "t2", "t1", "t0"]


def test_an_expired_task_is_gone(store: TaskStore) -> None:
    store.create(_task("old", created_at=time.time() - 10, ttl_ms=1000))
    assert store.get("old", "caller=alice") is None


def test_a_lease_that_ran_out_fails_the_task_and_renewal_keeps_it(store: TaskStore) -> None:
    now = time.time()
    store.create(_task("lost", worker="dead", lease_until=now - 1))
    store.create(_task("kept", worker="alive", lease_until=now - 1))
    store.create(_task("stopped", worker="alive"))
    store.update("stopped", "cancelled", "Cancelled by its caller.")
    cancelled = store.renew("alive", now + 10)
    reaped = store.reap(now, LOST_MESSAGE, "EXECUTION_ERROR")
    lost = store.get("lost", "caller=alice")
    assert reaped == ["lost"]
    assert cancelled == ["stopped"]
    assert lost is not None and lost.status == "failed" and lost.code == "EXECUTION_ERROR"
    assert lost.status_message == LOST_MESSAGE
    assert store.get("kept", "caller=alice").status == "working"  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_a_runner_fails_a_task_whose_worker_stopped_renewing(store: TaskStore) -> None:
    store.create(_task("orphan", worker="gone", lease_until=time.time() - 1))
    task = await TaskRunner(store, lease=1.0).get("orphan", "caller=alice")
    assert task is not None and task.status == "failed"
    assert (task.status_message, task.code) == (LOST_MESSAGE, "EXECUTION_ERROR")


@pytest.mark.anyio
async def test_the_runner_runs_reports_and_cancels(tmp_path: Path) -> None:
    runner = TaskRunner(SqliteTaskStore(str(tmp_path / "t.db")), lease=1.0)

    async def work(report: TaskReporter) -> TaskOutcome:
        await report.progress(1, 2, "halfway")
        await report.waiting("Approve the export?")
        asking = await runner.get(report.task_id, "me")
        await report.waiting(None)
        await anyio.sleep(0.2)
        assert asking is not None and asking.status == "input_required"
        assert asking.status_message == "Approve the export?"
        return TaskOutcome({"content": [], "isError": False})

    async def forever(report: TaskReporter) -> TaskOutcome:
        await anyio.sleep(60)
        raise AssertionError("cancelled long before")

    task = await runner.start("me", "export", work)
    slow = await runner.start("me", "export", forever)
    with anyio.fail_after(10):
        done = await runner.wait(task.task_id, "me")
        cancelled = await runner.cancel(slow.task_id, "me")
        while runner.running():
            await anyio.sleep(0.05)
    assert done is not None and done.status == "completed"
    assert cancelled is not None and cancelled.status == "cancelled"
    assert await runner.get(task.task_id, "someone else") is None
    final = await runner.get(slow.task_id, "me")
    assert final is not None and final.status == "cancelled"  # its stopping changed nothing


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
