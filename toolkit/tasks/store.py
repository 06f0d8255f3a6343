"""Where long-running calls (tasks) keep their state, progress and result.

A task is a call that answers at once with an id and finishes later (MCP's ``tasks``). Its row
says who created it (only they may read, list or cancel it), its status and status message,
which worker runs it and until when that worker's lease holds: a worker renews the lease of
its running tasks every few seconds, and any worker that finds a lease run out marks the task
failed, so a task whose worker died is never left working forever.

* :class:`MemoryTaskStore` — the default: in this process.
* :class:`SqliteTaskStore` — in a SQLite file (the call log's is a good home) that every
  worker process of a server shares: a client that comes back to another worker finds its task.
* :class:`PostgresTaskStore` — in a PostgreSQL table, for replicas on several hosts.
* :class:`TaskStore` — the protocol another store implements.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = [
    "LIVE_STATUSES",
    "MemoryTaskStore",
    "PostgresTaskStore",
    "SqliteTaskStore",
    "StoredTask",
    "TaskStatus",
    "TaskStore",
]

#: A task's status, as MCP names them.
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]

#: The statuses of a task that has not finished: a worker holds a lease on it.
LIVE_STATUSES: frozenset[str] = frozenset({"working", "input_required"})


@dataclass(frozen=True, slots=True)
class StoredTask:
    """One task.

    Attributes:
        task_id: The task's id (unguessable: it is what a client holds).
        owner: Who created it (:func:`toolkit.results.store.owner_of`); only they see it.
        tool: The tool called.
        status: ``working``, ``input_required``, ``completed``, ``failed`` or ``cancelled``.
        status_message: What it is doing, or why it failed, for a person.
        created_at: POSIX time of creation.
        updated_at: POSIX time of the last change.
        ttl_ms: How long it is kept from creation, in milliseconds (``None``: no limit).
        poll_interval_ms: How often a client should ask about it.
        worker: The id of the worker process that runs it.
        lease_until: POSIX time until which that worker vouches for it.
        result: The call's result in the wire form of the server that ran it, once finished.
        code: The error code of a failed task (an :class:`~toolkit.errors.ErrorCode` value).
    """

    task_id: str
    owner: str
    tool: str
    status: TaskStatus
    status_message: str | None
    created_at: float
    updated_at: float
    ttl_ms: int | None
    poll_interval_ms: int
    worker: str
    lease_until: float
    result: Mapping[str, Any] | None = None
    code: str | None = None

    @property
    def live(self) -> bool:
        """Whether it has not finished yet."""
        return self.status in LIVE_STATUSES

    @property
    def expires_at(self) -> float | None:
        """POSIX time after which it may be forgotten (``None``: never)."""
        return None if self.ttl_ms is None else self.created_at + self.ttl_ms / 1000


def _fields(task: StoredTask) -> dict[str, Any]:
    return {f.name: getattr(task, f.name) for f in dataclasses.fields(task)}


class TaskStore(Protocol):
    """Keeps tasks; safe to use from several threads. Every read is scoped to an owner."""

    def create(self, task: StoredTask) -> None:
        """Keep a new task (forgetting the expired ones on the way)."""

    def get(self, task_id: str, owner: str) -> StoredTask | None:
        """The task ``task_id`` if ``owner`` created it and it has not expired, else ``None``."""

    def tasks(self, owner: str, offset: int, limit: int) -> list[StoredTask]:
        """``owner``'s tasks, newest first, from ``offset`` on, at most ``limit``."""

    def update(
        self,
        task_id: str,
        status: TaskStatus,
        message: str | None,
        *,
        result: Mapping[str, Any] | None = None,
        code: str | None = None,
    ) -> StoredTask | None:
        """Set a live task's status, message (and result); ``None`` when it had finished.

        Finished is final: a cancelled or failed task stays so even if its work returns later.
        """

    def renew(self, worker: str, until: float) -> list[str]:
        """Extend ``worker``'s lease on its live tasks to ``until``; the ids of its tasks that
        were cancelled meanwhile (by a client on another worker), for it to stop them."""

    def reap(self, now: float, message: str, code: str) -> list[str]:
        """Mark failed every live task whose lease ran out before ``now``; their ids."""


class MemoryTaskStore:
    """Tasks in this process's memory (one worker)."""

    def __init__(self) -> None:
        self._tasks: dict[str, StoredTask] = {}
        self._lock = threading.Lock()

    def create(self, task: StoredTask) -> None:
        """Keep ``task``, forgetting the expired ones."""
        now = time.time()
        with self._lock:
            for key, kept in list(self._tasks.items()):
                if kept.expires_at is not None and kept.expires_at <= now:
                    del self._tasks[key]
            self._tasks[task.task_id] = task

    def get(self, task_id: str, owner: str) -> StoredTask | None:
        """``owner``'s task ``task_id``, unless expired."""
        with self._lock:
            kept = self._tasks.get(task_id)
        if kept is None or kept.owner != owner:
            return None
        if kept.expires_at is not None and kept.expires_at <= time.time():
            return None
        return kept

    def tasks(self, owner: str, offset: int, limit: int) -> list[StoredTask]:
        """``owner``'s unexpired tasks, newest first."""
        now = time.time()
        with self._lock:
            mine = [
                t
                for t in self._tasks.values()
                if t.owner == owner and (t.expires_at is None or t.expires_at > now)
            ]
        mine.sort(key=lambda t: (-t.created_at, t.task_id))
        return mine[offset : offset + limit]

    def update(
        self,
        task_id: str,
        status: TaskStatus,
        message: str | None,
        *,
        result: Mapping[str, Any] | None = None,
        code: str | None = None,
    ) -> StoredTask | None:
        """Set a live task's status; ``None`` when it had finished already."""
        with self._lock:
            kept = self._tasks.get(task_id)
            if kept is None or not kept.live:
                return None
            changed = dataclasses.replace(
                kept,
                status=status,
                status_message=message,
                updated_at=time.time(),
                result=result if result is not None else kept.result,
                code=code,
            )
            self._tasks[task_id] = changed
            return changed

    def renew(self, worker: str, until: float) -> list[str]:
        """Extend ``worker``'s leases; its tasks cancelled meanwhile."""
        with self._lock:
            for key, kept in self._tasks.items():
                if kept.worker == worker and kept.live:
                    self._tasks[key] = dataclasses.replace(kept, lease_until=until)
            return [
                t.task_id
                for t in self._tasks.values()
                if t.worker == worker and t.status == "cancelled"
            ]

    def reap(self, now: float, message: str, code: str) -> list[str]:
        """Fail the live tasks whose lease ran out."""
        with self._lock:
            lost = [t for t in self._tasks.values() if t.live and t.lease_until < now]
            for kept in lost:
                self._tasks[kept.task_id] = dataclasses.replace(
                    kept, status="failed", status_message=message, updated_at=now, code=code
                )
            return [t.task_id for t in lost]


class _SqlTaskStore:
    """A task store on an SQL table (:mod:`adapters.stores.tasks_sql`)."""

    _db: Any  # an adapters.stores.tasks_sql.SqlTasks

    def create(self, task: StoredTask) -> None:
        """Keep ``task`` (one transaction; expired rows are deleted on the way)."""
        self._db.create({**_fields(task), "expires_at": task.expires_at})

    def get(self, task_id: str, owner: str) -> StoredTask | None:
        """``owner``'s task ``task_id``, unless expired."""
        row = self._db.get(task_id, owner)
        return None if row is None else StoredTask(**row)

    def tasks(self, owner: str, offset: int, limit: int) -> list[StoredTask]:
        """``owner``'s unexpired tasks, newest first."""
        return [StoredTask(**row) for row in self._db.tasks(owner, offset, limit)]

    def update(
        self,
        task_id: str,
        status: TaskStatus,
        message: str | None,
        *,
        result: Mapping[str, Any] | None = None,
        code: str | None = None,
    ) -> StoredTask | None:
        """Set a live task's status; ``None`` when it had finished already."""
        row = self._db.update(task_id, status, message, result, code)
        return None if row is None else StoredTask(**row)

    def renew(self, worker: str, until: float) -> list[str]:
        """Extend ``worker``'s leases; its tasks cancelled meanwhile."""
        return list(self._db.renew(worker, until))

    def reap(self, now: float, message: str, code: str) -> list[str]:
        """Fail the live tasks whose lease ran out."""
        return list(self._db.reap(now, message, code))


class SqliteTaskStore(_SqlTaskStore):
    """Tasks in a SQLite file that every worker process of a server shares.

    Args:
        path: The database file or a ``sqlite:///path`` URL (the call log's file is a good
            home: the ``tasks`` table sits next to its ``calls``).
    """

    def __init__(self, path: str) -> None:
        # The SQL lives with the other storage backends (adapters.stores), imported by name
        # when a store is first made, as the call log's stores are.
        self.path = path
        self._db = importlib.import_module("adapters.stores.tasks_sqlite").SqliteTasks(path)

    def __repr__(self) -> str:
        return f"SqliteTaskStore({self.path!r})"


class PostgresTaskStore(_SqlTaskStore):
    """Tasks in the ``toolkit_tasks`` table of a PostgreSQL database, shared by replicas on
    many hosts (needs ``psycopg`` 3, the ``[postgres]`` extra).

    Args:
        url: A ``postgresql://`` URL; a password may come from it, ``PGPASSWORD`` or
            ``~/.pgpass`` and is never shown.
        busy_timeout: Seconds a write waits for a lock, and at least two for the connection.
    """

    def __init__(self, url: str, busy_timeout: float = 5.0) -> None:
        backend = importlib.import_module("adapters.stores.tasks_postgres")
        self._db = backend.PostgresTasks(url, busy_timeout)
        self.name = self._db.name

    def __repr__(self) -> str:
        return f"PostgresTaskStore({self.name!r})"
