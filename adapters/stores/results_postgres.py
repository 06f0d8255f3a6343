"""The ``toolkit_results`` table of a PostgreSQL database (cut results' full text), shared by
replicas on many hosts: the backend of ``toolkit.results.PostgresResultStore``.

Imported only for a :class:`~toolkit.results.store.PostgresResultStore`; needs ``psycopg`` 3
(the ``[postgres]`` extra). The table is created on first use under an advisory lock, as the
call log's is. The text and the owner are kept as UTF-8 bytes (``BYTEA``), so that a result
comes back byte for byte even where PostgreSQL text cannot hold it (a NUL character).
"""

from __future__ import annotations

import math
import re
import threading
import time
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from toolkit.records.store import display_target, redact_target

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
_DRIVER = re.compile(r"^(postgres(?:ql)?)\+[A-Za-z0-9_]+://", re.IGNORECASE)


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
        self._url = _DRIVER.sub(lambda m: f"{m[1]}://", target)
        self._target = target
        self.name = display_target(target)
        self.busy_timeout = busy_timeout
        self._local = threading.local()

    def _db(self) -> psycopg.Connection[Any]:
        db: psycopg.Connection[Any] | None = getattr(self._local, "db", None)
        if db is None or db.closed:
            db = self._connect()
            self._local.db = db
        return db

    def _connect(self) -> psycopg.Connection[Any]:
        extra: dict[str, Any] = {}
        try:
            given = conninfo_to_dict(self._url)
        except psycopg.Error as exc:
            raise ValueError(
                f"Result store {self.name} is not a valid PostgreSQL URL: "
                f"{redact_target(str(exc), self._target)}"
            ) from None
        if "connect_timeout" not in given:
            extra["connect_timeout"] = max(2, math.ceil(self.busy_timeout))
        if "application_name" not in given:
            extra["application_name"] = "mcp-toolkit results"
        try:
            db = psycopg.connect(self._url, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise ConnectionError(
                f"Cannot connect to the result store {self.name}: "
                f"{redact_target(str(exc).strip(), self._target)}"
            ) from None
        db.execute(f"SET lock_timeout = {max(1, int(self.busy_timeout * 1000))}".encode())
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA:
                db.execute(statement.encode())
        return db

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
