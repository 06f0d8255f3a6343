"""Runs long calls as tasks: answer at once with an id, finish in the background.

:class:`TaskRunner` is protocol-free: a sink (the MCP server) hands it the work of one call
(an awaitable that returns the call's result in the sink's wire form) and gets a
:class:`~toolkit.tasks.store.StoredTask` back at once. The work runs on this process's event
loop; its progress messages become the task's status message; its result, failure or
cancellation is written to the :class:`~toolkit.tasks.store.TaskStore`, where any worker
sharing the store reads it.

Every worker renews the lease on the tasks it runs every ``heartbeat`` seconds. When a worker
dies (``kill -9``), its leases run out after ``lease`` seconds and the next worker to look —
on its own heartbeat, or when a client asks about the task — marks the task failed with an
``EXECUTION_ERROR`` message saying the worker stopped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from toolkit.errors import ErrorCode
from toolkit.tasks.store import MemoryTaskStore, StoredTask, TaskStatus, TaskStore

__all__ = ["LOST_MESSAGE", "TaskOutcome", "TaskReporter", "TaskRunner", "TaskWork"]

logger = logging.getLogger(__name__)

#: The status message of a task whose worker stopped before it finished.
LOST_MESSAGE = (
    "The worker running this task stopped before it finished (its lease ran out). The call "
    "may or may not have had its effect: check before calling again unless the tool is "
    "idempotent."
)


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """How a task's work ended.

    Attributes:
        result: The call's result, in the sink's wire form (kept as the task's result).
        failed: The call failed (the task ends ``failed`` rather than ``completed``).
        message: The task's final status message.
        code: The error code of a failed call.
    """

    result: Mapping[str, Any]
    failed: bool = False
    message: str | None = None
    code: str | None = None


class TaskReporter:
    """What a task's work tells its task: progress, and waiting for its client's answer."""

    def __init__(self, runner: TaskRunner, task_id: str) -> None:
        self._runner = runner
        self.task_id = task_id

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        """A :data:`~toolkit.context.ProgressCallback`: the message becomes the status message."""
        text = message or (f"{done:g}/{total:g}" if total else f"{done:g}")
        await self._runner._set(self.task_id, "working", text)

    async def waiting(self, question: str | None) -> None:
        """``input_required`` while the call waits for its client to answer ``question``;
        ``working`` again once answered (``None``)."""
        if question is None:
            await self._runner._set(self.task_id, "working", None)
        else:
            await self._runner._set(self.task_id, "input_required", question)


#: The work of one task: given its reporter, the call's outcome.
TaskWork = Callable[[TaskReporter], Awaitable[TaskOutcome]]


def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class TaskRunner:
    """Starts, tracks and cancels the tasks of one worker process.

    Args:
        store: Where tasks are kept (default: in memory, for one worker). Workers that share a
            :class:`~toolkit.tasks.store.SqliteTaskStore` answer for each other's tasks.
        lease: Seconds a worker vouches for its running tasks; a task whose worker has not
            renewed its lease for this long is marked failed.
        heartbeat: Seconds between lease renewals (default: a third of ``lease``).
        ttl_ms: How long a task is kept from creation when the client asks for no TTL.
        max_ttl_ms: The longest TTL a client may ask for (longer requests are cut to it).
        poll_interval_ms: How often clients are told to ask about a task.
    """

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        lease: float = 6.0,
        heartbeat: float | None = None,
        ttl_ms: int = 3_600_000,
        max_ttl_ms: int = 86_400_000,
        poll_interval_ms: int = 500,
    ) -> None:
        if lease <= 0:
            raise ValueError(f"lease must be a positive number of seconds, not {lease}")
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.worker = _worker_id()
        self.lease = lease
        self.heartbeat = heartbeat if heartbeat is not None else lease / 3
        self.ttl_ms = ttl_ms
        self.max_ttl_ms = max_ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self._running: dict[str, asyncio.Task[None]] = {}
        self._beats: set[asyncio.Task[None]] = set()

    async def _store(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.store, MemoryTaskStore):
            return fn(*args, **kwargs)
        return await anyio.to_thread.run_sync(lambda: fn(*args, **kwargs))

    async def start(
        self, owner: str, tool: str, work: TaskWork, *, ttl_ms: int | None = None
    ) -> StoredTask:
        """Create a ``working`` task for ``owner`` and start ``work`` in the background.

        Args:
            owner: Who asks (only they may read, list or cancel the task).
            tool: The tool called (for listings and messages).
            work: The call itself.
            ttl_ms: How long to keep the task (``None``: the runner's ``ttl_ms``).
        """
        self._ensure_heartbeat()
        now = time.time()
        task = StoredTask(
            task_id=secrets.token_urlsafe(18),
            owner=owner,
            tool=tool,
            status="working",
            status_message=None,
            created_at=now,
            updated_at=now,
            # A client's TTL is a wish: kept between a second and the runner's longest.
            ttl_ms=max(1000, min(ttl_ms if ttl_ms is not None else self.ttl_ms, self.max_ttl_ms)),
            poll_interval_ms=self.poll_interval_ms,
            worker=self.worker,
            lease_until=now + self.lease,
        )
        await self._store(self.store.create, task)
        self._running[task.task_id] = asyncio.create_task(self._run(task, work))
        return task

    async def _run(self, task: StoredTask, work: TaskWork) -> None:
        task_id = task.task_id
        try:
            outcome = await work(TaskReporter(self, task_id))
        except asyncio.CancelledError:
            # Cancelled by its caller (already so in the store) or the worker is stopping.
            await self._store(
                self.store.update,
                task_id,
                "failed",
                "The worker stopped before the task finished; call the tool again.",
                code=ErrorCode.EXECUTION_ERROR.value,
            )
        except Exception as exc:  # the sink's work turns failures into results; this is a bug
            logger.exception("task %s of %s failed outside the call", task_id, task.tool)
            await self._store(
                self.store.update,
                task_id,
                "failed",
                f"The task failed: {type(exc).__name__}.",
                code=ErrorCode.EXECUTION_ERROR.value,
            )
        else:
            status = "failed" if outcome.failed else "completed"
            await self._store(
                self.store.update,
                task_id,
                status,
                outcome.message,
                result=outcome.result,
                code=outcome.code,
            )
        finally:
            self._running.pop(task_id, None)

    async def _set(self, task_id: str, status: TaskStatus, message: str | None) -> None:
        await self._store(self.store.update, task_id, status, message)

    async def get(self, task_id: str, owner: str) -> StoredTask | None:
        """``owner``'s task, or ``None`` (unknown, expired, or someone else's)."""
        self._ensure_heartbeat()
        task: StoredTask | None = await self._store(self.store.get, task_id, owner)
        if task is not None and task.live and task.lease_until < time.time():
            await self._reap()
            task = await self._store(self.store.get, task_id, owner)
        return task

    async def tasks(self, owner: str, offset: int, limit: int) -> list[StoredTask]:
        """``owner``'s tasks, newest first."""
        self._ensure_heartbeat()
        await self._reap()
        tasks: list[StoredTask] = await self._store(self.store.tasks, owner, offset, limit)
        return tasks

    async def cancel(self, task_id: str, owner: str) -> StoredTask | None:
        """Cancel ``owner``'s task: the task as it is after (``None``: no such task).

        A finished task stays as it was (the caller tells the client it cannot be cancelled).
        """
        task = await self.get(task_id, owner)
        if task is None or not task.live:
            return task
        changed: StoredTask | None = await self._store(
            self.store.update, task_id, "cancelled", "Cancelled by its caller."
        )
        running = self._running.get(task_id)
        if running is not None:
            running.cancel()
        return changed or await self.get(task_id, owner)

    async def wait(self, task_id: str, owner: str) -> StoredTask | None:
        """Wait until ``owner``'s task has finished; the finished task (``None``: no such task)."""
        while True:
            task = await self.get(task_id, owner)
            if task is None or not task.live:
                return task
            running = self._running.get(task_id)
            delay = min(task.poll_interval_ms / 1000, self.heartbeat)
            if running is not None:  # here: wake as soon as it ends
                await asyncio.wait({running}, timeout=delay)
            else:
                await asyncio.sleep(delay)

    def running(self) -> int:
        """How many tasks this worker runs now."""
        return len(self._running)

    async def _reap(self) -> None:
        lost = await self._store(
            self.store.reap, time.time(), LOST_MESSAGE, ErrorCode.EXECUTION_ERROR.value
        )
        if lost:
            logger.warning("marked %d task(s) failed: their worker stopped", len(lost))

    def _ensure_heartbeat(self) -> None:
        # One heartbeat per event loop that uses the runner (normally one), each held here:
        # asyncio keeps only weak references to its tasks.
        loop = asyncio.get_running_loop()
        beats = self._beats
        for beat in [b for b in beats if b.done()]:
            beats.discard(beat)
        if not any(b.get_loop() is loop for b in beats):
            beats.add(loop.create_task(self._heartbeat()))

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                cancelled = await self._store(
                    self.store.renew, self.worker, time.time() + self.lease
                )
                for task_id in cancelled:
                    running = self._running.get(task_id)
                    if running is not None:
                        running.cancel()
                await self._reap()
            except Exception:  # a locked or lost database: try again on the next beat
                logger.exception("task lease renewal failed")
