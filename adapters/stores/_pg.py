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

__all__ = ["PgConnections", "connect", "plain_url"]

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
        db = connect(
            self.target,
            named=f"the {self.what} store {self.name}",
            app=self.what,
            busy_timeout=self.busy_timeout,
            autocommit=True,
            invalid=f"The {self.what} store {self.name}",
        )
        db.execute(f"SET lock_timeout = {max(1, int(self.busy_timeout * 1000))}".encode())
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (self.lock,))
            for statement in self.schema:
                db.execute(statement.encode())
        return db


def plain_url(target: str) -> str:
    """``target`` without a ``+driver`` suffix of its scheme (``postgresql+psycopg://``)."""
    return _DRIVER.sub(lambda m: f"{m[1]}://", target)


def connect(
    target: str,
    *,
    named: str,
    app: str,
    busy_timeout: float,
    autocommit: bool,
    invalid: str,
) -> psycopg.Connection[Any]:
    """A connection to ``target`` with a connect timeout and an application name unless the URL
    sets them; failures name the store (``named``, ``invalid``) and never show a password.

    Raises:
        ValueError: ``target`` is not a PostgreSQL URL (``"{invalid} is not a valid ..."``).
        ConnectionError: The database cannot be reached (``"Cannot connect to {named}: ..."``).
    """
    url = plain_url(target)
    try:
        given = conninfo_to_dict(url)
    except psycopg.Error as exc:
        raise ValueError(
            f"{invalid} is not a valid PostgreSQL URL: {redact_target(str(exc), target)}"
        ) from None
    extra: dict[str, Any] = {}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = max(2, math.ceil(busy_timeout))
    if "application_name" not in given:
        extra["application_name"] = f"mcp-toolkit {app}"
    try:
        return psycopg.connect(url, autocommit=autocommit, **extra)
    except psycopg.Error as exc:
        raise ConnectionError(
            f"Cannot connect to {named}: {redact_target(str(exc).strip(), target)}"
        ) from None
