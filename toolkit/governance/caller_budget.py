"""``CallerBudget``: a server's :class:`~toolkit.RunBudget` per caller and time window."""

from __future__ import annotations

import threading
from collections import OrderedDict

from toolkit.governance._middleware_chain import RunGuard
from toolkit.governance.budget import Run, RunBudget, current_run
from toolkit.governance.middleware import CallNext, ToolCall
from toolkit.result import ToolResult

__all__ = ["DEFAULT_WINDOW", "CallerBudget"]

#: Seconds after which a caller's run starts again when the budget sets no ``window``.
DEFAULT_WINDOW = 3600.0
#: Most callers remembered at once; the least recently seen go first.
MAX_CALLERS = 10_000


class CallerBudget:
    """Middleware: each caller's calls are one run per time window, bounded by ``budget``.

    A call made while a run is already current (a nested call: a graph tool's inner calls,
    the search mode's ``call_tool`` target) counts against that run, so nothing is counted
    twice.

    Args:
        budget: The limits of each caller's run; its ``window`` (default 3600 s) is how often
            the run starts again.

    Example:
        >>> from toolkit import RunBudget, ToolRegistry
        >>> registry = ToolRegistry(middleware=[CallerBudget(RunBudget(calls=100, window=60))])
    """

    name = "budget"
    inline = True

    def __init__(self, budget: RunBudget) -> None:
        self.budget = budget
        self.window = budget.window if budget.window is not None else DEFAULT_WINDOW
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._lock = threading.Lock()

    def run_of(self, caller: str) -> Run:
        """The current run of ``caller`` (a new one when its window is over)."""
        with self._lock:
            run = self._runs.get(caller)
            if run is None or run.elapsed >= self.window:
                run = self._runs[caller] = Run(self.budget)
                if len(self._runs) > MAX_CALLERS:
                    self._runs.popitem(last=False)
            else:
                self._runs.move_to_end(caller)
            return run

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        if current_run() is not None:  # nested: the run's own guard counted it
            return await call_next(call)
        run = self.run_of(call.caller)
        with run.current():
            return await RunGuard(run).on_call(call, call_next)
