"""The ``toolkit_tasks`` table of a PostgreSQL database: tasks shared by replicas on many hosts.

Imported only for a :class:`~toolkit.tasks.store.PostgresTaskStore`; needs ``psycopg`` 3 (the
``[postgres]`` extra). The table is created on first use under an advisory lock, as the call
log's is.
"""

from __future__ import annotations

from adapters.stores._pg import PgConnections
from adapters.stores.tasks_sql import Connection, SqlTasks
from adapters.stores.tasks_sql import schema as schema_of

_SCHEMA_LOCK = 0x746B_7473  # "tkts"


class PostgresTasks(SqlTasks):
    """One autocommit connection per thread; each write is one explicit transaction."""

    table = "toolkit_tasks"
    placeholder = "%s"

    def __init__(self, target: str, busy_timeout: float = 5.0) -> None:
        schema = tuple(schema_of(self.table, "DOUBLE PRECISION", "BIGINT"))
        self._pg = PgConnections(
            target, what="task", schema=schema, lock=_SCHEMA_LOCK, busy_timeout=busy_timeout
        )
        self.name = self._pg.name
        self.busy_timeout = busy_timeout

    def _db(self) -> Connection:
        return self._pg.db()
