"""The tasks table in SQL, for the SQLite and PostgreSQL task stores.

:class:`SqlTasks` holds the queries, written with ``{t}`` for the table and ``?`` for
parameters; a backend names its table, its placeholder, the statement that starts a write
transaction, and gives a connection per thread. Rows travel as dicts of
:class:`~toolkit.tasks.store.StoredTask`'s fields (this module does not import the store's
module, which imports it).
"""

from __future__ import annotations

import abc
import functools
import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

#: A task as a dict of its fields (``StoredTask``'s).
Fields = dict[str, Any]

_COLUMNS = (
    "task_id, owner, tool, status, status_message, created_at, updated_at, ttl_ms, "
    "poll_interval_ms, worker, lease_until, result, code"
)
_NAMES = tuple(name.strip() for name in _COLUMNS.split(","))
_LIVE = "status IN ('working', 'input_required')"
_UNEXPIRED = "(expires_at IS NULL OR expires_at > ?)"


def schema(table: str, real: str, integer: str) -> list[str]:
    """The statements creating ``table`` and its indexes, with the backend's number types."""
    return [
        f"""CREATE TABLE IF NOT EXISTS {table} (
            task_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            tool TEXT NOT NULL,
            status TEXT NOT NULL,
            status_message TEXT,
            created_at {real} NOT NULL,
            updated_at {real} NOT NULL,
            ttl_ms {integer},
            expires_at {real},
            poll_interval_ms {integer} NOT NULL,
            worker TEXT NOT NULL,
            lease_until {real} NOT NULL,
            result TEXT,
            code TEXT
        )""",
        f"CREATE INDEX IF NOT EXISTS {table}_owner ON {table} (owner, created_at)",
        f"CREATE INDEX IF NOT EXISTS {table}_live ON {table} (status, lease_until)",
        f"CREATE INDEX IF NOT EXISTS {table}_worker ON {table} (worker, status)",
    ]


class Connection(Protocol):
    """The part of a DB-API connection (sqlite3's, psycopg's) the queries use."""

    def execute(self, sql: Any, parameters: Any = ..., /) -> Any: ...


def _fields(row: tuple[Any, ...]) -> Fields:
    fields = dict(zip(_NAMES, row, strict=True))
    if fields["result"] is not None:
        fields["result"] = json.loads(fields["result"])
    return fields


class SqlTasks(abc.ABC):
    """The queries of a task store, on the backend's connection of the calling thread."""

    #: The table's name.
    table = "tasks"
    #: The driver's parameter placeholder.
    placeholder = "?"
    #: The statement that starts a write transaction.
    begin = "BEGIN"

    @abc.abstractmethod
    def _db(self) -> Connection:
        """The calling thread's connection (each backend keeps its own)."""

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one entry per query text and backend class
    def _sql(self, query: str) -> str:
        return query.replace("{t}", self.table).replace("?", self.placeholder)

    def _run(self, db: Connection, query: str, parameters: tuple[Any, ...] = ()) -> Any:
        return db.execute(self._sql(query), parameters)

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        db = self._db()
        db.execute(self.begin)
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def create(self, t: Fields) -> None:
        """Insert the task ``t`` (with its ``expires_at``), deleting expired rows."""
        values = (
            *(t[name] for name in _NAMES[:-2]),
            None if t["result"] is None else json.dumps(t["result"]),
            t["code"],
            t["expires_at"],
        )
        marks = ", ".join("?" * len(values))
        with self._write() as db:
            self._run(db, "DELETE FROM {t} WHERE expires_at <= ?", (time.time(),))
            self._run(db, f"INSERT INTO {{t}} ({_COLUMNS}, expires_at) VALUES ({marks})", values)

    def get(self, task_id: str, owner: str) -> Fields | None:
        """``owner``'s task ``task_id``, unless expired."""
        query = f"SELECT {_COLUMNS} FROM {{t}} WHERE task_id = ? AND owner = ? AND {_UNEXPIRED}"
        row = self._run(self._db(), query, (task_id, owner, time.time())).fetchone()
        return None if row is None else _fields(row)

    def tasks(self, owner: str, offset: int, limit: int) -> list[Fields]:
        """``owner``'s unexpired tasks, newest first."""
        query = (
            f"SELECT {_COLUMNS} FROM {{t}} WHERE owner = ? AND {_UNEXPIRED} "
            "ORDER BY created_at DESC, task_id LIMIT ? OFFSET ?"
        )
        rows = self._run(self._db(), query, (owner, time.time(), limit, offset)).fetchall()
        return [_fields(row) for row in rows]

    def update(
        self,
        task_id: str,
        status: str,
        message: str | None,
        result: Mapping[str, Any] | None,
        code: str | None,
    ) -> Fields | None:
        """Set a live task's status; ``None`` when it had finished already."""
        stored = None if result is None else json.dumps(result)
        with self._write() as db:
            changed = self._run(
                db,
                "UPDATE {t} SET status = ?, status_message = ?, updated_at = ?, "
                f"result = COALESCE(?, result), code = ? WHERE task_id = ? AND {_LIVE}",
                (status, message, time.time(), stored, code, task_id),
            ).rowcount
            if not changed:
                return None
            query = f"SELECT {_COLUMNS} FROM {{t}} WHERE task_id = ?"
            return _fields(self._run(db, query, (task_id,)).fetchone())

    def renew(self, worker: str, until: float) -> list[str]:
        """Extend ``worker``'s leases; the ids of its tasks cancelled in the last hour."""
        with self._write() as db:
            self._run(
                db,
                f"UPDATE {{t}} SET lease_until = ? WHERE worker = ? AND {_LIVE}",
                (until, worker),
            )
            rows = self._run(
                db,
                "SELECT task_id FROM {t} WHERE worker = ? AND status = 'cancelled' "
                "AND updated_at > ?",
                (worker, time.time() - 3600),
            ).fetchall()
        return [row[0] for row in rows]

    def reap(self, now: float, message: str, code: str) -> list[str]:
        """Fail the live tasks whose lease ran out before ``now``; their ids."""
        with self._write() as db:
            rows = self._run(
                db, f"SELECT task_id FROM {{t}} WHERE {_LIVE} AND lease_until < ?", (now,)
            ).fetchall()
            if rows:
                self._run(
                    db,
                    "UPDATE {t} SET status = 'failed', status_message = ?, code = ?, "
                    f"updated_at = ? WHERE {_LIVE} AND lease_until < ?",
                    (message, code, now, now),
                )
        return [row[0] for row in rows]
