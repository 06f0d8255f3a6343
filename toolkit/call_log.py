"""A durable call log: :class:`CallRecord` objects written to SQLite, off the call path.

A :class:`CallLog` subscribes to a registry. Each record is put on an in-memory queue (the
call never waits for the disk); a background thread writes the queue in batches, in one
transaction each, to a SQLite file in WAL mode (readers such as ``toolkit calls`` never block
writers). Old rows are pruned by age and by count. A full disk, a locked database or any other
write failure is logged and counted, and never fails a tool call.

Example:
    >>> log = CallLog("calls.db").attach(registry)  # doctest: +SKIP
    >>> registry.call_sync("add", {"a": 1, "b": 2})  # doctest: +SKIP
    >>> log.close()  # doctest: +SKIP
    >>> read_calls("calls.db", tool="add")  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import queue
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from toolkit._redact import redact_arguments
from toolkit.result import CallRecord

__all__ = [
    "CALL_LOG_ENV",
    "CallLog",
    "LoggedCall",
    "call_log_path",
    "caller_scope",
    "current_caller",
    "read_calls",
]

log = logging.getLogger("toolkit.call_log")

#: Environment variable naming the default call-log file (``toolkit calls``, the app factory).
CALL_LOG_ENV = "TOOLKIT_CALL_LOG"

_caller: contextvars.ContextVar[str | None] = contextvars.ContextVar("toolkit_caller", default=None)

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
    arguments TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS calls_started ON calls (started_at);
CREATE INDEX IF NOT EXISTS calls_tool ON calls (tool, started_at);
"""

_INSERT = (
    "INSERT INTO calls (call_id, tool, outcome, code, decision, attempts, duration_ms, "
    "started_at, caller, arguments) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_Row = tuple[str, str, str, str | None, str, int, float, float, str, str]


class _Connection(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...
    def executemany(self, sql: str, parameters: Any, /) -> Any: ...
    def commit(self) -> None: ...
    def close(self) -> None: ...


def current_caller() -> str | None:
    """The caller set by the innermost :func:`caller_scope`, if any."""
    return _caller.get()


@contextlib.contextmanager
def caller_scope(caller: str) -> Iterator[None]:
    """Calls made inside this block are logged with ``caller`` (a user, tenant or client id).

    Servers wrap each request in it; it overrides the log's default caller.
    """
    token = _caller.set(caller)
    try:
        yield
    finally:
        _caller.reset(token)


def call_log_path(target: str | os.PathLike[str]) -> Path:
    """The file of a call-log target: a path or a ``sqlite:///path`` URL.

    Raises:
        ValueError: ``target`` is a URL of a database other than SQLite.
    """
    text = os.fspath(target)
    if text.startswith("sqlite:///"):
        return Path(text.removeprefix("sqlite:///"))
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise ValueError(
            f"Call log {text!r}: only SQLite is built in (a file path or sqlite:///path). For "
            f"{scheme}, pass connect= a function returning a DB-API connection to CallLog."
        )
    return Path(text)


class CallLog:
    """A record sink that writes calls to a database, batched on a background thread.

    Args:
        target: A file path or ``sqlite:///path`` URL (created with its table if missing).
        connect: Instead of ``target``: a function returning a DB-API connection with ``?``
            placeholders (the table must exist or be creatable with SQLite-compatible DDL).
        retention_days: Rows older than this are deleted (``None``: kept by age).
        max_rows: At most this many rows are kept, the newest (``None``: no cap).
        caller: What the ``caller`` column says when no :func:`caller_scope` is active
            (default: ``host:pid``).
        batch_size: Most records written in one transaction.
        flush_interval: Seconds the writer waits to gather a batch.
        queue_limit: Records held in memory while the database is slow; more are dropped and
            counted in :attr:`dropped`.
        busy_timeout: Seconds a write waits for a lock held by another process before the
            batch is given up (logged and counted).

    Attributes:
        written: Records stored so far.
        dropped: Records lost (queue full or a failed write), each one logged.
        failures: Failed write attempts.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | None = None,
        *,
        connect: Callable[[], _Connection] | None = None,
        retention_days: float | None = 30.0,
        max_rows: int | None = 1_000_000,
        caller: str | None = None,
        batch_size: int = 500,
        flush_interval: float = 0.2,
        queue_limit: int = 100_000,
        busy_timeout: float = 2.0,
    ) -> None:
        if (target is None) == (connect is None):
            raise ValueError("CallLog needs exactly one of target (a path or URL) or connect=.")
        self.path = call_log_path(target) if target is not None else None
        self._connect = connect or self._sqlite
        self.retention_days = retention_days
        self.max_rows = max_rows
        self.caller = caller or f"{socket.gethostname()}:{os.getpid()}"
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.busy_timeout = busy_timeout
        self.written = self.dropped = self.failures = 0
        self._queue: queue.Queue[_Row | None] = queue.Queue(maxsize=queue_limit)
        self._idle = threading.Event()
        self._idle.set()
        self._unsubscribers: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._run, name="toolkit-call-log", daemon=True)
        self._closed = False
        self._thread.start()

    # -- the sink ------------------------------------------------------------------------------

    def attach(self, registry: Any) -> CallLog:
        """Subscribe to ``registry`` (anything with ``subscribe(callback)``); returns ``self``."""
        self._unsubscribers.append(registry.subscribe(self))
        return self

    def __call__(self, record: CallRecord) -> None:
        """Queue ``record`` for writing; never blocks and never raises."""
        if self._closed:
            return
        try:
            row: _Row = (
                record.call_id,
                record.tool,
                record.outcome,
                record.code.value if record.code else None,
                record.decision,
                record.attempts,
                record.duration_ms,
                record.started_at or time.time(),
                _caller.get() or self.caller,
                json.dumps(redact_arguments(record.arguments), default=str),
            )
            self._idle.clear()
            self._queue.put_nowait(row)
        except queue.Full:
            self.dropped += 1
            log.warning("call log queue is full: record of call %s dropped", record.call_id)
        except Exception:
            self.dropped += 1
            log.exception("call log could not queue call %s", record.call_id)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every queued record is written (or dropped); ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        while not (self._queue.empty() and self._idle.is_set()):
            if time.monotonic() > deadline or not self._thread.is_alive():
                return False
            self._idle.wait(0.01)
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Stop listening, write what is queued, and stop the writer thread."""
        for unsubscribe in self._unsubscribers:
            with contextlib.suppress(ValueError):
                unsubscribe()
        self._unsubscribers.clear()
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)

    def __enter__(self) -> CallLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the writer thread ---------------------------------------------------------------------

    def _sqlite(self) -> _Connection:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout)
        conn.execute("PRAGMA journal_mode=WAL")  # outside a transaction: no statement ran yet
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _open(self) -> _Connection | None:
        try:
            conn = self._connect()
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.commit()
            return conn
        except Exception as exc:
            self.failures += 1
            log.error("call log %s cannot be opened: %s", self.path or "database", exc)
            return None

    def _run(self) -> None:
        conn: _Connection | None = None
        stop = False
        while not stop:
            batch, stop = self._gather()
            if batch:
                if conn is None:
                    conn = self._open()
                conn = self._write(conn, batch)
                if conn is not None:
                    self._prune(conn)
            if self._queue.empty():
                self._idle.set()
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        self._idle.set()

    def _gather(self) -> tuple[list[_Row], bool]:
        first = self._queue.get()
        if first is None:
            return [], True
        batch = [first]
        deadline = time.monotonic() + self.flush_interval
        while len(batch) < self.batch_size:
            try:
                item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if item is None:
                return batch, True
            batch.append(item)
        return batch, False

    def _write(self, conn: _Connection | None, batch: list[_Row]) -> _Connection | None:
        if conn is None:
            self.dropped += len(batch)
            log.warning("call log unavailable: %d records dropped", len(batch))
            return None
        try:
            conn.executemany(_INSERT, batch)
            conn.commit()
            self.written += len(batch)
            return conn
        except Exception as exc:
            self.failures += 1
            self.dropped += len(batch)
            log.error("call log write failed, %d records dropped: %s", len(batch), exc)
            with contextlib.suppress(Exception):
                conn.close()
            return None  # reopened on the next batch

    def _prune(self, conn: _Connection) -> None:
        try:
            if self.retention_days is not None:
                cutoff = time.time() - self.retention_days * 86400
                conn.execute("DELETE FROM calls WHERE started_at < ?", (cutoff,))
            if self.max_rows is not None:
                conn.execute(
                    "DELETE FROM calls WHERE id <= (SELECT MAX(id) FROM calls) - ?",
                    (self.max_rows,),
                )
            conn.commit()
        except Exception as exc:
            self.failures += 1
            log.warning("call log retention failed: %s", exc)


@dataclass(frozen=True, slots=True)
class LoggedCall:
    """One row of the call log."""

    call_id: str
    tool: str
    outcome: str
    code: str | None
    decision: str
    attempts: int
    duration_ms: float
    started_at: float
    caller: str
    arguments: Any

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def read_calls(
    target: str | os.PathLike[str],
    *,
    tool: str | None = None,
    code: str | None = None,
    outcome: str | None = None,
    caller: str | None = None,
    since: float | None = None,
    until: float | None = None,
    limit: int = 50,
) -> list[LoggedCall]:
    """The newest calls in a call log, newest first, filtered.

    Args:
        target: The log's file path or ``sqlite:///path`` URL.
        tool: Only this tool.
        code: Only this error code (``"ok"`` for successes).
        outcome: Only ``"ok"``, ``"error"`` or ``"raised"``.
        caller: Only this caller.
        since: Only calls started at or after this POSIX time.
        until: Only calls started before this POSIX time.
        limit: At most this many rows.

    Raises:
        FileNotFoundError: There is no log at ``target``.
    """
    path = call_log_path(target)
    if not path.exists():
        raise FileNotFoundError(f"No call log at {path}: start the server with a call log first.")
    where: list[str] = []
    params: list[Any] = []
    for column, value in (("tool", tool), ("outcome", outcome), ("caller", caller)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if code is not None:
        where.append("code IS NULL" if code.lower() == "ok" else "code = ?")
        params.extend([] if code.lower() == "ok" else [code.upper()])
    if since is not None:
        where.append("started_at >= ?")
        params.append(since)
    if until is not None:
        where.append("started_at < ?")
        params.append(until)
    sql = (
        "SELECT call_id, tool, outcome, code, decision, attempts, duration_ms, started_at, "
        "caller, arguments FROM calls"
        + (f" WHERE {' AND '.join(where)}" if where else "")
        + " ORDER BY started_at DESC, id DESC LIMIT ?"
    )
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=2.0)
    try:
        rows = conn.execute(sql, (*params, limit)).fetchall()
    finally:
        conn.close()
    return [
        LoggedCall(
            call_id=row[0],
            tool=row[1],
            outcome=row[2],
            code=row[3],
            decision=row[4],
            attempts=row[5],
            duration_ms=row[6],
            started_at=row[7],
            caller=row[8],
            arguments=_json(row[9]),
        )
        for row in rows
    ]


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
