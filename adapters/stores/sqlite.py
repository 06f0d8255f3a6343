"""The call log's SQLite store: one file in WAL mode (readers never block the writer)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from toolkit.records.store import COLUMNS, CallQuery, Connection, LoggedCall, Row

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    outcome TEXT NOT NULL,
    code TEXT,
    decision TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    started_at REAL NOT NULL,
    caller TEXT NOT NULL,
    arguments TEXT NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    peer TEXT,
    answered_by TEXT,
    full_size INTEGER
);
CREATE INDEX IF NOT EXISTS calls_started ON calls (started_at);
CREATE INDEX IF NOT EXISTS calls_tool ON calls (tool, started_at);
"""

# Logs written before a column existed get it on first open.
_ADDED = {
    "host": "TEXT NOT NULL DEFAULT ''",
    "peer": "TEXT",
    "answered_by": "TEXT",
    "full_size": "INTEGER",
}

_INSERT = f"INSERT INTO calls ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def call_log_path(target: str | os.PathLike[str]) -> Path:
    """The file of a SQLite call-log target: a path or a ``sqlite:///path`` URL.

    Raises:
        ValueError: ``target`` is a URL of another database.
    """
    text = os.fspath(target)
    if text.startswith("sqlite:///"):
        return Path(text.removeprefix("sqlite:///"))
    if "://" in text:
        from toolkit.records.store import display_target

        raise ValueError(
            f"Call log {display_target(text)} is not a SQLite file (a path or sqlite:///path); "
            "open it with CallLog(url) or read_calls(url)."
        )
    return Path(text)


def _create_private(path: Path) -> None:
    """Create ``path`` readable by its owner only (the log holds calls), unless it exists."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


class SqliteCallStore:
    """Rows in the ``calls`` table of a SQLite file (or of ``connect()``'s connection).

    Args:
        target: A file path or ``sqlite:///path`` URL; the file is created ``0600``.
        busy_timeout: Seconds a write waits for another process's lock.
        connect: Instead of the file: a function returning a DB-API connection with ``?``
            placeholders (the table must exist or be creatable with SQLite-compatible DDL).
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | None,
        busy_timeout: float = 2.0,
        *,
        connect: Callable[[], Connection] | None = None,
    ) -> None:
        self.path = call_log_path(target) if target is not None else None
        self.name = str(self.path) if self.path is not None else "database"
        self.busy_timeout = busy_timeout
        self._connect = connect
        self._conn: Connection | None = None

    def _sqlite(self) -> Connection:
        assert self.path is not None
        _create_private(self.path)
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout)
        conn.execute("PRAGMA journal_mode=WAL")  # outside a transaction: no statement ran yet
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def open(self) -> None:
        """Connect, and create the table (or add the columns it lacks) if needed."""
        conn = self._connect() if self._connect is not None else self._sqlite()
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            self._add_columns(conn)
            conn.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                conn.close()
            raise
        self._conn = conn

    @staticmethod
    def _add_columns(conn: Connection) -> None:
        try:
            have = {row[1] for row in conn.execute("PRAGMA table_info(calls)").fetchall()}
        except Exception:  # not SQLite (a connect= database): its table is its own business
            return
        for column, kind in _ADDED.items():
            if column not in have:
                try:
                    conn.execute(f"ALTER TABLE calls ADD COLUMN {column} {kind}")
                except sqlite3.OperationalError as exc:  # another process added it just now
                    if "duplicate column" not in str(exc):
                        raise

    def write(self, rows: list[Row]) -> None:
        """Insert ``rows`` in one transaction; on failure the connection is closed."""
        assert self._conn is not None
        try:
            self._conn.executemany(_INSERT, rows)
            self._conn.commit()
        except BaseException:
            self.close()
            raise

    def prune(self, retention_days: float | None, max_rows: int | None) -> None:
        """Delete old rows by age and by count."""
        assert self._conn is not None
        if retention_days is not None:
            cutoff = time.time() - retention_days * 86400
            self._conn.execute("DELETE FROM calls WHERE started_at < ?", (cutoff,))
        if max_rows is not None:
            self._conn.execute(
                "DELETE FROM calls WHERE id <= (SELECT MAX(id) FROM calls) - ?", (max_rows,)
            )
        self._conn.commit()

    def read(self, query: CallQuery) -> list[LoggedCall]:
        """The calls ``query`` asks for, over a read-only connection.

        Raises:
            FileNotFoundError: There is no log file.
        """
        if self.path is None:
            raise ValueError("A call log opened with connect= is read through that connection.")
        if not self.path.exists():
            raise FileNotFoundError(
                f"No call log at {self.path}: start the server with a call log first."
            )
        where, params = query.conditions("?")
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2.0)
        try:
            have = {row[1] for row in conn.execute("PRAGMA table_info(calls)").fetchall()}
            columns = ", ".join(c if c in have else "NULL" for c in COLUMNS)
            sql = (
                f"SELECT {columns} FROM calls"
                + (f" WHERE {' AND '.join(where)}" if where else "")
                + " ORDER BY started_at DESC, id DESC LIMIT ?"
            )
            rows = conn.execute(sql, (*params, query.limit)).fetchall()
        finally:
            conn.close()
        return [LoggedCall.from_row(row) for row in rows]

    def close(self) -> None:
        """Close the connection (reopened by the next :meth:`open`)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
