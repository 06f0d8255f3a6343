"""What a model reads of a result: the result budget and the cut (head and tail, JSON kept
valid), where a cut result's full text is kept, and ``read_result`` / ``result://{call_id}``
that give it back to the caller who made the call.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from toolkit.results.budget import (
    DEFAULT_RESULT_BUDGET,
    MIN_RESULT_BUDGET,
    NO_BUDGET,
    ResultCut,
    budget_of,
    fit_result,
)
from toolkit.results.reader import (
    DEFAULT_READ,
    READ_RESULT,
    RESULT_URI,
    offer_reader,
    read_stored,
    reader_tool,
    result_resource,
)
from toolkit.results.store import (
    DEFAULT_KEEP_SECONDS,
    MemoryResultStore,
    PostgresResultStore,
    ResultStore,
    SqliteResultStore,
    StoredResult,
    owner_of,
)

__all__ = [
    "DEFAULT_KEEP_SECONDS",
    "DEFAULT_READ",
    "DEFAULT_RESULT_BUDGET",
    "MIN_RESULT_BUDGET",
    "NO_BUDGET",
    "READ_RESULT",
    "RESULT_URI",
    "MemoryResultStore",
    "PostgresResultStore",
    "ResultCut",
    "ResultStore",
    "SqliteResultStore",
    "StoredResult",
    "budget_of",
    "fit_result",
    "offer_reader",
    "owner_of",
    "read_stored",
    "reader_tool",
    "result_resource",
]
