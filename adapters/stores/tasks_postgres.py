"""The ``toolkit_tasks`` table of a PostgreSQL database: tasks shared by replicas on many hosts.

Imported only for a :class:`~toolkit.tasks.store.PostgresTaskStore`; needs ``psycopg`` 3 (the
``[postgres]`` extra). The table is created on first use under an advisory lock, as the call
log's is.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from adapters.stores.tasks_sql import Connection, SqlTasks, schema
from toolkit.records.store import display_target, redact_target

_SCHEMA_LOCK = 0x746B_7473  # "tkts"
_DRIVER = re.compile(r"^(postgres(?:ql)?)\+[A-Za-z0-9_]+://", re.IGNORECASE)


class PostgresTasks(SqlTasks):
    """One autocommit connection per thread; each write is one explicit transaction."""

    table = "toolkit_tasks"
    placeholder = "%s"

    def __init__(self, target: str, busy_timeout: float = 5.0) -> None:
        self._url = _DRIVER.sub(lambda m: f"{m[1]}://", target)
        self._target = target
        self.name = display_target(target)
        self.busy_timeout = busy_timeout
        self._local = threading.local()

    def _db(self) -> Connection:
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
                f"Task store {self.name} is not a valid PostgreSQL URL: "
                f"{redact_target(str(exc), self._target)}"
            ) from None
        if "connect_timeout" not in given:
            extra["connect_timeout"] = max(2, math.ceil(self.busy_timeout))
        if "application_name" not in given:
            extra["application_name"] = "mcp-toolkit tasks"
        try:
            db = psycopg.connect(self._url, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise ConnectionError(
                f"Cannot connect to the task store {self.name}: "
                f"{redact_target(str(exc).strip(), self._target)}"
            ) from None
        db.execute(f"SET lock_timeout = {max(1, int(self.busy_timeout * 1000))}")
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in schema(self.table, "DOUBLE PRECISION", "BIGINT"):
                db.execute(statement.encode())
        return db
