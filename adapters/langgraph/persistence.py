"""Checkpointers that outlive the process, so a pending approval can be resumed by another one.

LangGraph's own ``langgraph-checkpoint-sqlite`` (extra ``[sqlite]``) keeps the graph state in
a SQLite file: an agent built with :func:`sqlite_checkpointer` that stops at an approval
``interrupt()`` can be resumed with ``Command(resume=...)`` by a new process using the same
file and ``thread_id``. For several replicas or hosts, :func:`postgres_checkpointer` keeps it
in PostgreSQL with LangGraph's ``langgraph-checkpoint-postgres`` (extra ``[postgres]``): any
replica resumes what another one paused. :func:`build_agent` accepts any checkpointer.

Rule: the tables are set up on first use (under an advisory lock, so replicas starting at once
do not race), and a URL's password never appears in a message.

Rule: the state holds the calls and their arguments, so a file the library creates for it is
readable by its owner only (0600); SQLite gives its journal files the same permissions.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.records.store import display_target, redact_target

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

__all__ = [
    "async_checkpointer",
    "async_postgres_checkpointer",
    "async_sqlite_checkpointer",
    "postgres_checkpointer",
    "sqlite_checkpointer",
]

_MISSING = (
    "A SQLite checkpointer needs LangGraph's langgraph-checkpoint-sqlite package: "
    "pip install 'mcp-toolkit[sqlite]'."
)


def sqlite_checkpointer(path: str | Path) -> SqliteSaver:
    """A checkpointer for ``invoke``/``stream`` that saves graph state in the file ``path``.

    The connection is shared between threads (LangGraph serialises its use) and stays open for
    the life of the process.

    Raises:
        ImportError: ``langgraph-checkpoint-sqlite`` is not installed (the message says how).
    """
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    _private_file(path)
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


@asynccontextmanager
async def async_sqlite_checkpointer(path: str | Path) -> AsyncIterator[AsyncSqliteSaver]:
    """A checkpointer for ``ainvoke``/``astream`` saving graph state in ``path``; closed on exit.

    Raises:
        ImportError: ``langgraph-checkpoint-sqlite`` (with ``aiosqlite``) is not installed.
    """
    try:
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    _private_file(path)
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


_MISSING_PG = (
    "A PostgreSQL checkpointer needs LangGraph's langgraph-checkpoint-postgres and psycopg 3: "
    "pip install 'mcp-toolkit[postgres]'."
)
# An advisory lock key of this library's own: one replica sets the tables up at a time.
_SETUP_LOCK = 0x746B_6370_6B74  # "tkcpkt"
# What LangGraph's saver expects of its connections.
_CONNECTION = {"autocommit": True, "prepare_threshold": 0}


def is_postgres_url(target: str | Path) -> bool:
    """Whether ``target`` is a ``postgresql://`` (or ``postgres://``) URL rather than a file."""
    return str(target).lower().startswith(("postgresql://", "postgres://"))


@contextlib.contextmanager
def _setup_errors(url: str) -> Iterator[None]:
    import psycopg

    try:
        yield
    except psycopg.Error as exc:
        raise ConnectionError(
            f"Cannot set up the checkpoint database {display_target(url)}: "
            f"{redact_target(str(exc).strip(), url)}"
        ) from None


def postgres_checkpointer(url: str, *, max_connections: int = 10) -> PostgresSaver:
    """A checkpointer for ``invoke``/``stream`` that saves graph state in PostgreSQL.

    Its tables are created (or migrated) now, once per database. Connections come from a pool
    that stays open for the life of the process.

    Args:
        url: A ``postgresql://`` URL (a password may also come from ``PGPASSWORD``).
        max_connections: The pool's size.

    Raises:
        ImportError: ``langgraph-checkpoint-postgres`` is not installed (the message says how).
        ConnectionError: The database cannot be reached or set up (no password in the message).
    """
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ImportError(_MISSING_PG) from exc
    with (
        _setup_errors(url),
        psycopg.connect(url, row_factory=dict_row, **_CONNECTION) as conn,  # type: ignore[arg-type]
    ):
        conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
        PostgresSaver(conn).setup()  # type: ignore[arg-type]
        conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
    pool: Any = ConnectionPool(
        url,
        min_size=1,
        max_size=max_connections,
        kwargs={"row_factory": dict_row, **_CONNECTION},
        open=True,
    )
    return PostgresSaver(pool)


@asynccontextmanager
async def async_postgres_checkpointer(
    url: str, *, max_connections: int = 10
) -> AsyncIterator[AsyncPostgresSaver]:
    """A checkpointer for ``ainvoke``/``astream`` saving graph state in PostgreSQL; closed on exit.

    Its tables are created (or migrated) on entry, once per database.

    Raises:
        ImportError: ``langgraph-checkpoint-postgres`` is not installed (the message says how).
        ConnectionError: The database cannot be reached or set up (no password in the message).
    """
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool
    except ImportError as exc:
        raise ImportError(_MISSING_PG) from exc
    with _setup_errors(url):
        async with await psycopg.AsyncConnection.connect(
            url,
            row_factory=dict_row,
            **_CONNECTION,  # type: ignore[arg-type]
        ) as conn:
            await conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
            await AsyncPostgresSaver(conn).setup()  # type: ignore[arg-type]
            await conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
    pool: Any = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_connections,
        kwargs={"row_factory": dict_row, **_CONNECTION},
        open=False,
    )
    async with pool:
        yield AsyncPostgresSaver(pool)


@asynccontextmanager
async def async_checkpointer(target: str | Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """:func:`async_postgres_checkpointer` for a ``postgresql://`` URL, else
    :func:`async_sqlite_checkpointer` for a file."""
    if is_postgres_url(target):
        async with async_postgres_checkpointer(str(target)) as saver:
            yield saver
    else:
        async with async_sqlite_checkpointer(target) as sqlite_saver:
            yield sqlite_saver


def _private_file(path: str | Path) -> None:
    """Create ``path`` (and its folder) readable by its owner only, unless it exists."""
    if str(path) == ":memory:" or str(path).startswith("file:"):
        return  # no file, or a URI SQLite opens itself
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # an existing file keeps its permissions
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
