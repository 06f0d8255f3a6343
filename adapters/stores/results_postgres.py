"""The ``toolkit_results`` table of a PostgreSQL database (cut results' full text), shared by
replicas on many hosts: the backend of ``toolkit.results.PostgresResultStore``.

Imported only for a :class:`~toolkit.results.store.PostgresResultStore`; needs ``psycopg`` 3
(the ``[postgres]`` extra). The table is created on first use under an advisory lock, as the
call log's is. The text and the owner are kept as UTF-8 bytes (``BYTEA``), so that a result
comes back byte for byte even where PostgreSQL text cannot hold it (a NUL character).
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from adapters.stores._pg import PgConnections

TABLE = "toolkit_results"

_SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        call_id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        owner BYTEA NOT NULL,
        budget BIGINT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        text BYTEA NOT NULL
    )""",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_expiry ON {TABLE} (expires_at)",
)
_PUT = (
    f"INSERT INTO {TABLE} (call_id, tool, owner, budget, expires_at, text) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (call_id) DO UPDATE SET "
    "tool = EXCLUDED.tool, owner = EXCLUDED.owner, budget = EXCLUDED.budget, "
    "expires_at = EXCLUDED.expires_at, text = EXCLUDED.text"
)
_GET = (
    f"SELECT call_id, tool, owner, text, budget, expires_at FROM {TABLE} "
    "WHERE call_id = %s AND expires_at > %s"
)
_SCHEMA_LOCK = 0x746B_7273  # "tkrs"


def _bytes(text: str) -> bytes:
    # surrogatepass: a lone surrogate a tool returned comes back as it went in.
    return text.encode("utf-8", "surrogatepass")


def _text(value: Any) -> str:
    return bytes(value).decode("utf-8", "surrogatepass")


def _plain(text: str) -> str:
    # PostgreSQL text cannot hold NUL; ids and tool names are shown, never compared byte-wise.
    return text.replace("\x00", "\ufffd")


class PostgresResults:
    """One autocommit connection per thread; each write is one explicit transaction."""

    def __init__(self, target: str, busy_timeout: float = 5.0) -> None:
        self._pg = PgConnections(
            target, what="result", schema=_SCHEMA, lock=_SCHEMA_LOCK, busy_timeout=busy_timeout
        )
        self.name = self._pg.name
        self.busy_timeout = busy_timeout

    def _db(self) -> psycopg.Connection[Any]:
        return self._pg.db()

    def put(self, row: tuple[str, str, str, int, float, str]) -> None:
        """Write ``(call_id, tool, owner, budget, expires_at, text)``, dropping expired rows."""
        call_id, tool, owner, budget, expires_at, text = row
        db = self._db()
        with db.transaction():
            db.execute(f"DELETE FROM {TABLE} WHERE expires_at <= %s".encode(), (time.time(),))
            db.execute(
                _PUT.encode(),
                (_plain(call_id), _plain(tool), _bytes(owner), budget, expires_at, _bytes(text)),
            )

    def get(self, call_id: str) -> tuple[str, str, str, str, int, float] | None:
        """``(call_id, tool, owner, text, budget, expires_at)`` unless missing or expired."""
        row = self._db().execute(_GET.encode(), (_plain(call_id), time.time())).fetchone()
        if row is None:
            return None
        kept_id, tool, owner, text, budget, expires_at = row
        return (kept_id, tool, _text(owner), _text(text), int(budget), float(expires_at))
