"""The call log's PostgreSQL store: many processes and hosts write one ``toolkit_calls`` table.

Imported only for a ``postgresql://`` target; needs ``psycopg`` 3 (the ``[postgres]`` extra).
The table and its indexes are created on first use, under an advisory lock (two processes
starting at once would otherwise race on ``CREATE TABLE IF NOT EXISTS``). A batch is one
``COPY``; pruning runs at most every ``prune_interval`` seconds per process, and only in the
process that gets the prune lock, so replicas do not delete the same rows at once. Rows are
kept by age and by id (``max_rows`` counts ids, so rolled-back inserts make it keep a few less).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

import psycopg
from psycopg import sql

from adapters.stores._pg import connect
from toolkit.records.store import COLUMNS, CallQuery, LoggedCall, Row, display_target, redact_target

TABLE = "toolkit_calls"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    outcome TEXT NOT NULL,
    code TEXT,
    decision TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    caller TEXT NOT NULL,
    host TEXT NOT NULL,
    peer TEXT,
    arguments TEXT NOT NULL,
    answered_by TEXT,
    full_size BIGINT
);
CREATE INDEX IF NOT EXISTS {TABLE}_started ON {TABLE} (started_at);
CREATE INDEX IF NOT EXISTS {TABLE}_tool ON {TABLE} (tool, started_at);
CREATE INDEX IF NOT EXISTS {TABLE}_caller ON {TABLE} (caller, started_at);
CREATE INDEX IF NOT EXISTS {TABLE}_host ON {TABLE} (host, started_at)
"""

# Tables written before a column existed get it when a writer opens them.
_ADDED = {"answered_by": "TEXT", "full_size": "BIGINT"}
_HAVE = "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped"

# Advisory lock keys (any two constants of this library's own).
_SCHEMA_LOCK = 0x746B_6373  # "tkcs"
_PRUNE_LOCK = 0x746B_6370  # "tkcp"

_COPY = f"COPY {TABLE} ({', '.join(COLUMNS)}) FROM STDIN"


def _clean(row: Row) -> tuple[Any, ...]:
    # PostgreSQL text cannot hold NUL; a tool name asked for by a client may.
    return tuple(v.replace("\x00", "\ufffd") if type(v) is str and "\x00" in v else v for v in row)


class PostgresCallStore:
    """Rows in the ``toolkit_calls`` table of a PostgreSQL database.

    Args:
        target: A ``postgresql://`` URL (``postgres://`` and ``postgresql+driver://`` too). A
            password may come from the URL, ``PGPASSWORD`` or ``~/.pgpass``; it is never shown.
        busy_timeout: Seconds a write waits for a lock (``lock_timeout``) and, at least two,
            for the connection.
        prune_interval: The call log's default least seconds between two prunes of one process.
    """

    def __init__(
        self, target: str, busy_timeout: float = 2.0, *, prune_interval: float = 10.0
    ) -> None:
        self._target = target
        self.name = display_target(target)
        self.busy_timeout = busy_timeout
        self.prune_interval = prune_interval
        self._conn: psycopg.Connection[Any] | None = None

    def __repr__(self) -> str:
        return f"PostgresCallStore({self.name!r})"

    @property
    def url(self) -> str:
        """The URL this store was opened with, password included: for opening another store on
        the same database (the call log's result store). Never shown; ``name`` is."""
        return self._target

    def _connect(self, *, autocommit: bool) -> psycopg.Connection[Any]:
        return connect(
            self._target,
            named=f"the call log {self.name}",
            app="call log",
            busy_timeout=self.busy_timeout,
            autocommit=autocommit,
            invalid=f"Call log {self.name}",
        )

    def open(self) -> None:
        """Connect; create the table and indexes under an advisory lock if they are missing."""
        conn = self._connect(autocommit=False)
        try:
            lock_ms = max(1, int(self.busy_timeout * 1000))
            conn.execute(f"SET lock_timeout = {lock_ms}")
            conn.execute(f"SET statement_timeout = {max(10_000, 5 * lock_ms)}")
            exists = conn.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()
            if exists is None or exists[0] is None:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in _SCHEMA.split(";"):
                    conn.execute(statement.encode())
            elif missing := [c for c in _ADDED if c not in _columns(conn)]:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for column in missing:
                    add = f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS {column} {_ADDED[column]}"
                    conn.execute(add.encode())
            conn.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                conn.close()
            raise
        self._conn = conn

    def write(self, rows: list[Row]) -> None:
        """Copy ``rows`` in one transaction; on failure the connection is closed."""
        assert self._conn is not None
        try:
            with self._conn.cursor() as cursor, cursor.copy(_COPY.encode()) as copy:
                for row in rows:
                    copy.write_row(_clean(row))
            self._conn.commit()
        except BaseException:
            self.close()
            raise

    def prune(self, retention_days: float | None, max_rows: int | None) -> None:
        """Delete old rows by age and by count, unless another process is pruning right now."""
        assert self._conn is not None
        if retention_days is None and max_rows is None:
            return
        conn = self._conn
        try:
            got = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (_PRUNE_LOCK,)).fetchone()
            if got and got[0]:
                if retention_days is not None:
                    cutoff = time.time() - retention_days * 86400
                    conn.execute(
                        f"DELETE FROM {TABLE} WHERE started_at < %s",
                        (cutoff,),
                    )
                if max_rows is not None:
                    conn.execute(
                        f"DELETE FROM {TABLE} WHERE id <= (SELECT max(id) FROM {TABLE}) - %s",
                        (max_rows,),
                    )
            conn.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                conn.rollback()
            raise

    def read(self, query: CallQuery) -> list[LoggedCall]:
        """The calls ``query`` asks for, newest first.

        Raises:
            ConnectionError: The database cannot be reached (the message has no password).
            FileNotFoundError: The database has no call log table yet.
        """
        where, params = query.conditions("%s")
        with self._connect(autocommit=True) as conn:
            try:
                conn.execute("SET default_transaction_read_only = on")
                exists = conn.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()
                if exists is None or exists[0] is None:
                    raise FileNotFoundError(
                        f"No call log in {self.name} (no {TABLE} table): start the server "
                        "with --call-log pointing at it first."
                    )
                have = _columns(conn)  # a table no writer of this version has opened yet
                statement = sql.SQL(
                    f"SELECT {', '.join(c if c in have else 'NULL' for c in COLUMNS)} FROM {TABLE}"
                    + (f" WHERE {' AND '.join(where)}" if where else "")
                    + " ORDER BY started_at DESC, id DESC LIMIT %s"
                )
                rows = conn.execute(statement, (*params, query.limit)).fetchall()
            except psycopg.Error as exc:
                raise ConnectionError(
                    f"Reading the call log {self.name} failed: "
                    f"{redact_target(str(exc).strip(), self._target)}"
                ) from None
        return [LoggedCall.from_row(row) for row in rows]

    def close(self) -> None:
        """Close the connection (reopened by the next :meth:`open`)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()


def _columns(conn: psycopg.Connection[Any]) -> set[str]:
    return {row[0] for row in conn.execute(_HAVE, (TABLE,)).fetchall()}
