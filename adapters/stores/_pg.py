"""One PostgreSQL connection per thread for a store of ``adapters.stores`` (psycopg 3).

A store's table is created on first use, under an advisory lock so that replicas starting at
once do not race; a URL's password is never shown in a name or a message.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

from toolkit.records.store import display_target, redact_target

__all__ = ["PgConnections"]

_DRIVER = re.compile(r"^(postgres(?:ql)?)\+[A-Za-z0-9_]+://", re.IGNORECASE)


class PgConnections:
    """Autocommit connections to ``target``, one per thread, each with the store's schema.

    Args:
        target: A ``postgresql://`` URL (a ``+driver`` suffix of the scheme is dropped).
        what: What the store keeps, for messages and ``application_name`` (``"tasks"``).
        schema: The statements that create the table, run once per connection.
        lock: The advisory lock the schema is created under.
        busy_timeout: Seconds a write waits for a lock, and at least two for the connection.
    """

    def __init__(
        self,
        target: str,
        *,
        what: str,
        schema: Iterable[str],
        lock: int,
        busy_timeout: float = 5.0,
    ) -> None:
        self.url = _DRIVER.sub(lambda m: f"{m[1]}://", target)
        self.target = target
        self.name = display_target(target)
        self.what = what
        self.schema = tuple(schema)
        self.lock = lock
        self.busy_timeout = busy_timeout
        self._local = threading.local()

    def db(self) -> psycopg.Connection[Any]:
        """The calling thread's connection (opened, with the schema, on first use)."""
        db: psycopg.Connection[Any] | None = getattr(self._local, "db", None)
        if db is None or db.closed:
            db = self._local.db = self._connect()
        return db

    def _connect(self) -> psycopg.Connection[Any]:
        extra: dict[str, Any] = {}
        try:
            given = conninfo_to_dict(self.url)
        except psycopg.Error as exc:
            raise ValueError(
                f"The {self.what} store {self.name} is not a valid PostgreSQL URL: "
                f"{redact_target(str(exc), self.target)}"
            ) from None
        if "connect_timeout" not in given:
            extra["connect_timeout"] = max(2, math.ceil(self.busy_timeout))
        if "application_name" not in given:
            extra["application_name"] = f"mcp-toolkit {self.what}"
        try:
            db = psycopg.connect(self.url, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise ConnectionError(
                f"Cannot connect to the {self.what} store {self.name}: "
                f"{redact_target(str(exc).strip(), self.target)}"
            ) from None
        db.execute(f"SET lock_timeout = {max(1, int(self.busy_timeout * 1000))}".encode())
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (self.lock,))
            for statement in self.schema:
                db.execute(statement.encode())
        return db
