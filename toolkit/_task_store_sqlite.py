"""The ``tasks`` table of a SQLite file: long-running calls, shared by worker processes."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from toolkit._call_store_sqlite import _create_private, call_log_path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    tool TEXT NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    ttl_ms INTEGER,
    expires_at REAL,
    poll_interval_ms INTEGER NOT NULL,
    worker TEXT NOT NULL,
    lease_until REAL NOT NULL,
    result TEXT,
    code TEXT
);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks (owner, created_at);
CREATE INDEX IF NOT EXISTS tasks_live ON tasks (status, lease_until);
CREATE INDEX IF NOT EXISTS tasks_worker ON tasks (worker, status);
"""

_COLUMNS = (
    "task_id, owner, tool, status, status_message, created_at, updated_at, ttl_ms, "
    "poll_interval_ms, worker, lease_until, result, code"
)
_NAMES = tuple(name.strip() for name in _COLUMNS.split(","))
_LIVE = "status IN ('working', 'input_required')"
_UNEXPIRED = "(expires_at IS NULL OR expires_at > ?)"


#: A task as a dict of its fields (``StoredTask``'s), as the store module builds them.
Fields = dict[str, Any]


def _task(row: tuple[Any, ...]) -> Fields:
    fields = dict(zip(_NAMES, row, strict=True))
    if fields["result"] is not None:
        fields["result"] = json.loads(fields["result"])
    return fields


class SqliteTasks:
    """One connection per thread to the file, in WAL mode (readers never block the writer)."""

    def __init__(self, target: str) -> None:
        self._path = call_log_path(target)
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            _create_private(self._path)
            db = sqlite3.connect(self._path, timeout=10.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            self._local.db = db
        return db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def create(self, t: Fields) -> None:
        """Insert the task ``t``, deleting expired rows."""
        with self._write() as db:
            db.execute("DELETE FROM tasks WHERE expires_at <= ?", (time.time(),))
            db.execute(
                f"INSERT INTO tasks ({_COLUMNS}, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(t[name] for name in _NAMES[:-2]),
                    None if t["result"] is None else json.dumps(t["result"]),
                    t["code"],
                    t["expires_at"],
                ),
            )

    def get(self, task_id: str, owner: str) -> Fields | None:
        """The row of ``owner``'s task ``task_id``, unless expired."""
        row = (
            self._db()
            .execute(
                f"SELECT {_COLUMNS} FROM tasks WHERE task_id = ? AND owner = ? AND {_UNEXPIRED}",
                (task_id, owner, time.time()),
            )
            .fetchone()
        )
        return None if row is None else _task(row)

    def tasks(self, owner: str, offset: int, limit: int) -> list[Fields]:
        """``owner``'s unexpired tasks, newest first."""
        rows = (
            self._db()
            .execute(
                f"SELECT {_COLUMNS} FROM tasks WHERE owner = ? AND {_UNEXPIRED} "
                "ORDER BY created_at DESC, task_id LIMIT ? OFFSET ?",
                (owner, time.time(), limit, offset),
            )
            .fetchall()
        )
        return [_task(row) for row in rows]

    def update(
        self,
        task_id: str,
        status: str,
        message: str | None,
        result: Mapping[str, Any] | None,
        code: str | None,
    ) -> Fields | None:
        """Set a live task's status; ``None`` when it had finished already."""
        with self._write() as db:
            changed = db.execute(
                "UPDATE tasks SET status = ?, status_message = ?, updated_at = ?, "
                f"result = COALESCE(?, result), code = ? WHERE task_id = ? AND {_LIVE}",
                (
                    status,
                    message,
                    time.time(),
                    None if result is None else json.dumps(result),
                    code,
                    task_id,
                ),
            ).rowcount
            if not changed:
                return None
            row = db.execute(f"SELECT {_COLUMNS} FROM tasks WHERE task_id = ?", (task_id,))
            return _task(row.fetchone())

    def renew(self, worker: str, until: float) -> list[str]:
        """Extend ``worker``'s leases; the ids of its cancelled tasks."""
        with self._write() as db:
            db.execute(
                f"UPDATE tasks SET lease_until = ? WHERE worker = ? AND {_LIVE}", (until, worker)
            )
            rows = db.execute(
                "SELECT task_id FROM tasks WHERE worker = ? AND status = 'cancelled' "
                "AND updated_at > ?",
                (worker, time.time() - 3600),
            ).fetchall()
        return [row[0] for row in rows]

    def reap(self, now: float, message: str, code: str) -> list[str]:
        """Fail the live tasks whose lease ran out before ``now``."""
        with self._write() as db:
            rows = db.execute(
                f"SELECT task_id FROM tasks WHERE {_LIVE} AND lease_until < ?", (now,)
            ).fetchall()
            db.execute(
                "UPDATE tasks SET status = 'failed', status_message = ?, code = ?, "
                f"updated_at = ? WHERE {_LIVE} AND lease_until < ?",
                (message, code, now, now),
            )
        return [row[0] for row in rows]
