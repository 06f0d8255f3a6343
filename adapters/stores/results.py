"""The ``results`` table of a SQLite file (cut results' full text), shared by worker processes:
the backend of ``toolkit.results.SqliteResultStore``."""

from __future__ import annotations

import sqlite3
import threading
import time

from adapters.stores.sqlite import _create_private, call_log_path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    call_id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    owner TEXT NOT NULL,
    budget INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS results_expiry ON results (expires_at);
"""


class SqliteResults:
    """One connection per thread to the file, in WAL mode (readers never block the writer)."""

    def __init__(self, target: str) -> None:
        self._path = call_log_path(target)
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            _create_private(self._path)
            db = sqlite3.connect(self._path, timeout=5.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            self._local.db = db
        return db

    def put(self, row: tuple[str, str, str, int, float, str]) -> None:
        """Write ``(call_id, tool, owner, budget, expires_at, text)``, dropping expired rows."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM results WHERE expires_at <= ?", (time.time(),))
            db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?)", row)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def get(self, call_id: str) -> tuple[str, str, str, str, int, float] | None:
        """``(call_id, tool, owner, text, budget, expires_at)`` unless missing or expired."""
        row: tuple[str, str, str, str, int, float] | None = (
            self._db()
            .execute(
                "SELECT call_id, tool, owner, text, budget, expires_at FROM results "
                "WHERE call_id = ? AND expires_at > ?",
                (call_id, time.time()),
            )
            .fetchone()
        )
        return row
