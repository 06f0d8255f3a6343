"""Long-running calls as tasks: a call answered at once, its result fetched later, its state
kept in a task store (in memory, or SQLite and PostgreSQL in ``adapters.stores``, which the
stores here import when first made) so that any worker can answer for it.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from toolkit.tasks.runner import LOST_MESSAGE, TaskOutcome, TaskReporter, TaskRunner, TaskWork
from toolkit.tasks.store import (
    LIVE_STATUSES,
    MemoryTaskStore,
    PostgresTaskStore,
    SqliteTaskStore,
    StoredTask,
    TaskStatus,
    TaskStore,
)

__all__ = [
    "LIVE_STATUSES",
    "LOST_MESSAGE",
    "MemoryTaskStore",
    "PostgresTaskStore",
    "SqliteTaskStore",
    "StoredTask",
    "TaskOutcome",
    "TaskReporter",
    "TaskRunner",
    "TaskStatus",
    "TaskStore",
    "TaskWork",
]
