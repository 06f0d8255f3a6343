"""Checkpointers that outlive the process, so a pending approval can be resumed by another one.

LangGraph's own ``langgraph-checkpoint-sqlite`` (extra ``[sqlite]``) keeps the graph state in
a SQLite file: an agent built with :func:`sqlite_checkpointer` that stops at an approval
``interrupt()`` can be resumed with ``Command(resume=...)`` by a new process using the same
file and ``thread_id``. For several replicas, use LangGraph's Postgres checkpointer instead
(``langgraph-checkpoint-postgres``); :func:`build_agent` accepts any checkpointer.

Rule: the state holds the calls and their arguments, so a file the library creates for it is
readable by its owner only (0600); SQLite gives its journal files the same permissions.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

__all__ = ["async_sqlite_checkpointer", "sqlite_checkpointer"]

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


def _private_file(path: str | Path) -> None:
    """Create ``path`` (and its folder) readable by its owner only, unless it exists."""
    if str(path) == ":memory:" or str(path).startswith("file:"):
        return  # no file, or a URI SQLite opens itself
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # an existing file keeps its permissions
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
