"""What governs a run: middleware around every call, run budgets and loop breaking, and the
built-in middleware (a cache of read-only results, rate limits, a budget per caller).

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from toolkit.governance.budget import Run, RunBudget, current_run
from toolkit.governance.cache import ResultCache
from toolkit.governance.caller_budget import CallerBudget
from toolkit.governance.middleware import CallNext, Middleware, ToolCall
from toolkit.governance.rate_limit import RateLimit

__all__ = [
    "CallNext",
    "CallerBudget",
    "Middleware",
    "RateLimit",
    "ResultCache",
    "Run",
    "RunBudget",
    "ToolCall",
    "current_run",
]
