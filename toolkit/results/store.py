"""Where the full text of a cut result is kept, so that nothing a tool returned is lost.

When a result is cut to fit the model's budget (:mod:`toolkit.results.budget`), its full text
goes to the registry's ``result_store`` under the call's id, with who made the call. The
``read_result`` tool and the MCP server's ``result://{call_id}`` resource read it back, for
that caller only.

* :class:`MemoryResultStore` — the default: in this process, for :data:`DEFAULT_KEEP_SECONDS`
  (one hour), the oldest results dropped first when more than ``max_chars`` are kept.
* :class:`SqliteResultStore` — in a SQLite file (the call log's, when one is attached), so that
  another worker process of the same server can answer ``read_result``.
* :class:`PostgresResultStore` — in a PostgreSQL table (the call log's database, when a
  ``postgresql://`` log is attached), so that replicas on several hosts can answer.
* :class:`ResultStore` — the protocol another store implements.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "DEFAULT_KEEP_SECONDS",
    "MemoryResultStore",
    "PostgresResultStore",
    "ResultStore",
    "SqliteResultStore",
    "StoredResult",
    "owner_of",
]

#: How long a cut result's full text is kept by default: one hour.
DEFAULT_KEEP_SECONDS = 3600.0

#: The caller values that say who made a call (set by the MCP server, a graph's config…).
_OWNER_KEYS = ("caller", "tenant", "user")


def owner_of(values: Mapping[str, Any]) -> str:
    """Who made a call, from its context values: ``""`` when the caller is anonymous."""
    return ";".join(f"{key}={values[key]}" for key in _OWNER_KEYS if values.get(key) is not None)


@dataclass(frozen=True, slots=True)
class StoredResult:
    """The full text of one cut result.

    Attributes:
        call_id: The id of the call that returned it.
        tool: The tool that returned it.
        owner: Who made the call (:func:`owner_of`); only they may read it.
        text: The full text the model would have read, unchanged.
        budget: The budget the result was cut to (reads are cut to fit it too).
        expires_at: POSIX time after which it is gone.
    """

    call_id: str
    tool: str
    owner: str
    text: str
    budget: int
    expires_at: float


class ResultStore(Protocol):
    """Keeps full results by call id; safe to use from several threads.

    Attributes:
        keep_seconds: How long a result is kept.
    """

    keep_seconds: float

    def put(self, result: StoredResult) -> None:
        """Keep ``result`` (replacing one with the same call id)."""

    def get(self, call_id: str) -> StoredResult | None:
        """The result kept under ``call_id``, or ``None`` when none is (or it expired)."""


class MemoryResultStore:
    """Full results in this process's memory.

    Args:
        keep_seconds: How long a result is kept (default one hour).
        max_chars: At most this many characters are kept in all; the oldest results go first.
    """

    def __init__(
        self, keep_seconds: float = DEFAULT_KEEP_SECONDS, max_chars: int = 256_000_000
    ) -> None:
        self.keep_seconds = keep_seconds
        self.max_chars = max_chars
        self._results: OrderedDict[str, StoredResult] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def put(self, result: StoredResult) -> None:
        """Keep ``result``; drop expired and, past ``max_chars``, the oldest ones."""
        now = time.time()
        with self._lock:
            self._drop(result.call_id)
            self._results[result.call_id] = result
            self._chars += len(result.text)
            for call_id, kept in list(self._results.items()):
                if kept.expires_at > now and self._chars <= self.max_chars:
                    break
                if call_id != result.call_id:
                    self._drop(call_id)

    def get(self, call_id: str) -> StoredResult | None:
        """The result kept under ``call_id``, unless it expired."""
        with self._lock:
            kept = self._results.get(call_id)
            if kept is not None and kept.expires_at <= time.time():
                self._drop(call_id)
                return None
            return kept

    def __len__(self) -> int:
        return len(self._results)

    def _drop(self, call_id: str) -> None:
        kept = self._results.pop(call_id, None)
        if kept is not None:
            self._chars -= len(kept.text)


class _SqlResultStore:
    """A store whose rows a backend of ``adapters.stores`` reads and writes."""

    keep_seconds: float
    _db: Any

    def put(self, result: StoredResult) -> None:
        """Keep ``result`` (one transaction; expired rows are deleted on the way)."""
        r = result
        self._db.put((r.call_id, r.tool, r.owner, r.budget, r.expires_at, r.text))

    def get(self, call_id: str) -> StoredResult | None:
        """The result kept under ``call_id``, unless it expired."""
        row = self._db.get(call_id)
        return None if row is None else StoredResult(*row)


class SqliteResultStore(_SqlResultStore):
    """Full results in a SQLite file that every worker process of a server shares.

    Args:
        path: The database file (the call log's file is a good home: ``CallLog.attach`` uses it).
        keep_seconds: How long a result is kept (default one hour).
    """

    def __init__(self, path: str, keep_seconds: float = DEFAULT_KEEP_SECONDS) -> None:
        # The SQLite table lives with the other storage backends (adapters.stores), imported
        # by name when a store is first made, as the call log's stores are.
        backend = importlib.import_module("adapters.stores.results")
        self.path = path
        self.keep_seconds = keep_seconds
        self._db = backend.SqliteResults(path)

    def __repr__(self) -> str:
        return f"SqliteResultStore({self.path!r})"


class PostgresResultStore(_SqlResultStore):
    """Full results in the ``toolkit_results`` table of a PostgreSQL database, for replicas on
    several hosts (needs ``psycopg``, the ``[postgres]`` extra).

    The text is kept as UTF-8 bytes, so it comes back byte for byte (NUL characters too).

    Args:
        url: A ``postgresql://`` URL (``postgres://`` and ``postgresql+driver://`` too); its
            password is never shown (``name`` and ``repr`` hide it).
        keep_seconds: How long a result is kept (default one hour).
        busy_timeout: Seconds a write waits for a lock and, at least two, for the connection.
    """

    def __init__(
        self, url: str, keep_seconds: float = DEFAULT_KEEP_SECONDS, busy_timeout: float = 5.0
    ) -> None:
        backend = importlib.import_module("adapters.stores.results_postgres")
        self.keep_seconds = keep_seconds
        self._db = backend.PostgresResults(url, busy_timeout)
        self.name: str = self._db.name

    def __repr__(self) -> str:
        return f"PostgresResultStore({self.name!r})"
