"""A durable call log: :class:`CallRecord` objects written to a database, off the call path.

A :class:`CallLog` subscribes to a registry. Each record is put on an in-memory queue (the
call never waits for the disk); a background thread writes the queue in batches, in one
transaction each, to a SQLite file in WAL mode (readers such as ``toolkit calls`` never block
writers) or to a PostgreSQL database that many processes and hosts share
(``postgresql://...``, the ``[postgres]`` extra; see :mod:`toolkit.records.store`). Old rows are
pruned by age and by count. A full disk, a locked or unreachable database or any other write
failure is logged and counted, and never fails a tool call.

Rule: a row names who called (the record's ``caller``, from ``CallOptions(caller=...)``: a
server sets the authenticated caller when it knows one), the host whose process ran the call,
and the peer address of an HTTP request (the record's ``peer``).
A target URL's password never appears in a message or log line (:func:`display_target`).

Example:
    >>> log = CallLog("calls.db").attach(registry)  # doctest: +SKIP
    >>> registry.call_sync("add", {"a": 1, "b": 2}, options=CallOptions(caller="alice"))  # doctest: +SKIP
    >>> log.close()  # doctest: +SKIP
    >>> read_calls("calls.db", tool="add")  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from toolkit.calls._redact import redact_arguments
from toolkit.records.store import (
    CallQuery,
    CallStore,
    Connection,
    LoggedCall,
    Row,
    display_target,
    open_call_store,
    redact_target,
    register_call_store,
)
from toolkit.result import CallRecord
from toolkit.results.store import MemoryResultStore, PostgresResultStore, SqliteResultStore

__all__ = [
    "CALL_LOG_ENV",
    "CallLog",
    "LoggedCall",
    "display_target",
    "read_calls",
    "register_call_store",
]

log = logging.getLogger("toolkit.call_log")

#: Environment variable naming the default call log (``toolkit calls``, the app factory).
CALL_LOG_ENV = "TOOLKIT_CALL_LOG"


class CallLog:
    """A record sink that writes calls to a database, batched on a background thread.

    Args:
        target: A file path or ``sqlite:///path`` URL (the file is created ``0600`` with its
            table if missing), or a ``postgresql://`` URL (the table is created on first use).
        connect: Instead of ``target``: a function returning a DB-API connection with ``?``
            placeholders (the table must exist or be creatable with SQLite-compatible DDL).
        retention_days: Rows older than this are deleted (``None``: kept by age).
        max_rows: At most this many rows are kept, the newest (``None``: no cap).
        caller: What the ``caller`` column says for a call whose record names no caller
            (default: ``host:pid``).
        batch_size: Most records written in one transaction.
        flush_interval: Seconds the writer waits to gather a batch.
        queue_limit: Records held in memory while the database is slow; more are dropped and
            counted in :attr:`dropped`.
        busy_timeout: Seconds a write waits for a lock held by another process before the
            batch is given up (logged and counted).
        prune_interval: Least seconds between two prunes (default: after every batch for
            SQLite, every 10 s for PostgreSQL).
        host: What the ``host`` column says (default: this machine's host name; a replica's
            name is clearer where host names are random, as in containers).

    Attributes:
        target: The target as it may be shown (a URL's password masked).
        written: Records stored so far.
        dropped: Records lost (queue full or a failed write), each one logged.
        failures: Failed write attempts.
    """

    def __init__(
        self,
        target: str | os.PathLike[str] | None = None,
        *,
        connect: Callable[[], Connection] | None = None,
        retention_days: float | None = 30.0,
        max_rows: int | None = 1_000_000,
        caller: str | None = None,
        batch_size: int = 500,
        flush_interval: float = 0.2,
        queue_limit: int = 100_000,
        busy_timeout: float = 2.0,
        prune_interval: float | None = None,
        host: str | None = None,
    ) -> None:
        if (target is None) == (connect is None):
            raise ValueError("CallLog needs exactly one of target (a path or URL) or connect=.")
        self._target = "" if target is None else os.fspath(target)
        self.store: CallStore = open_call_store(target, busy_timeout, connect=connect)
        self.target = self.store.name
        self.path = getattr(self.store, "path", None)
        self.prune_interval = (
            prune_interval
            if prune_interval is not None
            else float(getattr(self.store, "prune_interval", 0.0))
        )
        self._next_prune = 0.0
        self._host = host or socket.gethostname()
        self.retention_days = retention_days
        self.max_rows = max_rows
        self.caller = caller or f"{self._host}:{os.getpid()}"
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.busy_timeout = busy_timeout
        self.written = self.dropped = self.failures = 0
        self._queue: queue.Queue[Row | None] = queue.Queue(maxsize=queue_limit)
        self._idle = threading.Event()
        self._idle.set()
        self._unsubscribers: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._run, name="toolkit-call-log", daemon=True)
        self._closed = False
        self._thread.start()

    # -- the sink ------------------------------------------------------------------------------

    def attach(self, registry: Any) -> CallLog:
        """Subscribe to ``registry`` (anything with ``subscribe(callback)``); returns ``self``.

        A registry that keeps cut results in memory (the default) keeps them in this log's
        SQLite file or PostgreSQL database from now on, so that every process writing to the log
        can read them back (:class:`~toolkit.results.store.SqliteResultStore`,
        :class:`~toolkit.results.store.PostgresResultStore`).
        """
        self._unsubscribers.append(registry.subscribe(self))
        store = getattr(getattr(registry, "settings", None), "result_store", None)
        url = getattr(self.store, "url", None)  # a PostgreSQL store's URL
        if isinstance(store, MemoryResultStore) and self.path is not None:
            registry.configure(result_store=SqliteResultStore(str(self.path), store.keep_seconds))
        elif isinstance(store, MemoryResultStore) and isinstance(url, str):
            registry.configure(result_store=PostgresResultStore(url, store.keep_seconds))
        return self

    def __call__(self, record: CallRecord) -> None:
        """Queue ``record`` for writing; never blocks and never raises."""
        if self._closed:
            return
        try:
            row: Row = (
                record.call_id,
                record.tool,
                record.outcome,
                record.code.value if record.code else None,
                record.decision,
                record.attempts,
                record.duration_ms,
                record.started_at or time.time(),
                record.caller or self.caller,
                self._host,
                record.peer,
                json.dumps(redact_arguments(record.arguments), default=str),
                record.answered_by,
                record.full_size,
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

    def __repr__(self) -> str:
        return f"CallLog({self.target!r}, written={self.written}, dropped={self.dropped})"

    # -- the writer thread ---------------------------------------------------------------------

    def _safe(self, exc: BaseException) -> str:
        """An error's text for the log, without the target's password."""
        return redact_target(str(exc), self._target) if self._target else str(exc)

    def _open(self) -> bool:
        try:
            self.store.open()
            return True
        except Exception as exc:
            self.failures += 1
            log.error("call log %s cannot be opened: %s", self.target, self._safe(exc))
            return False

    def _run(self) -> None:
        connected = False
        stop = False
        while not stop:
            batch, stop = self._gather()
            if batch:
                connected = connected or self._open()
                connected = self._write(connected, batch)
                if connected:
                    self._prune()
            if self._queue.empty():
                self._idle.set()
        with contextlib.suppress(Exception):
            self.store.close()
        self._idle.set()

    def _gather(self) -> tuple[list[Row], bool]:
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

    def _write(self, connected: bool, batch: list[Row]) -> bool:
        if not connected:
            self.dropped += len(batch)
            log.warning("call log unavailable: %d records dropped", len(batch))
            return False
        try:
            self.store.write(batch)
            self.written += len(batch)
            return True
        except Exception as exc:
            self.failures += 1
            self.dropped += len(batch)
            log.error("call log write failed, %d records dropped: %s", len(batch), self._safe(exc))
            return False  # reopened on the next batch

    def _prune(self) -> None:
        now = time.monotonic()
        if now < self._next_prune:
            return
        self._next_prune = now + self.prune_interval
        try:
            self.store.prune(self.retention_days, self.max_rows)
        except Exception as exc:
            self.failures += 1
            log.warning("call log retention failed: %s", self._safe(exc))


def read_calls(
    target: str | os.PathLike[str],
    *,
    tool: str | None = None,
    code: str | None = None,
    outcome: str | None = None,
    caller: str | None = None,
    host: str | None = None,
    since: float | None = None,
    until: float | None = None,
    limit: int = 50,
) -> list[LoggedCall]:
    """The newest calls in a call log, newest first, filtered.

    Args:
        target: The log's file path, ``sqlite:///path`` or ``postgresql://`` URL.
        tool: Only this tool.
        code: Only this error code (``"ok"`` for successes).
        outcome: Only ``"ok"``, ``"error"`` or ``"raised"``.
        caller: Only this caller.
        host: Only calls run on this host.
        since: Only calls started at or after this POSIX time.
        until: Only calls started before this POSIX time.
        limit: At most this many rows.

    Raises:
        FileNotFoundError: There is no log at ``target``.
        ConnectionError: The database cannot be reached (the message has no password).
        ValueError: ``target`` names a database no store is registered for, or whose driver
            is not installed.
    """
    query = CallQuery(
        tool=tool,
        code=code,
        outcome=outcome,
        caller=caller,
        host=host,
        since=since,
        until=until,
        limit=limit,
    )
    return open_call_store(target).read(query)
