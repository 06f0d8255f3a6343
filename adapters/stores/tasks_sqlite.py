"""The ``tasks`` table of a SQLite file: long-running calls, shared by worker processes."""

from __future__ import annotations

import sqlite3
import threading

from adapters.stores.sqlite import _create_private, call_log_path
from adapters.stores.tasks_sql import Connection, SqlTasks, schema


class SqliteTasks(SqlTasks):
    """One connection per thread to the file, in WAL mode (readers never block the writer)."""

    begin = "BEGIN IMMEDIATE"  # take the write lock first: no upgrade deadlock between workers

    def __init__(self, target: str) -> None:
        self._path = call_log_path(target)
        self._local = threading.local()

    def _db(self) -> Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            _create_private(self._path)
            db = sqlite3.connect(self._path, timeout=10.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            for statement in schema(self.table, "REAL", "INTEGER"):
                db.execute(statement)
            self._local.db = db
        return db
