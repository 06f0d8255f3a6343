"""``ResultCache``: an identical call of a read-only or idempotent tool answered from the first
result instead of running again."""

from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from collections import OrderedDict

from toolkit.governance.budget import Run, current_run
from toolkit.governance.middleware import CallNext, ToolCall
from toolkit.result import ToolResult

__all__ = ["ResultCache"]


class ResultCache:
    """Middleware: reuse the result of an identical call of a tool marked ``read_only`` or
    ``idempotent`` (never of any other tool).

    Calls are identical when they name the same tool with the same canonical arguments and come
    from the same caller (one caller never gets another's result). Only successful results are
    kept.

    Args:
        ttl: ``None`` (default): results are reused within the current run only
            (``registry.run(...)``, an agent's run, a server caller's window); outside a run
            nothing is reused. Seconds: results are reused across runs for that long.
        max_entries: Most results kept (the oldest go first).

    Example:
        >>> from toolkit import ToolRegistry
        >>> registry = ToolRegistry(middleware=[ResultCache(ttl=60)])
    """

    name = "cache"
    inline = True

    def __init__(self, ttl: float | None = None, *, max_entries: int = 1024) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._shared: OrderedDict[tuple[str, str], tuple[float, ToolResult]] = OrderedDict()
        self._runs: weakref.WeakKeyDictionary[Run, dict[tuple[str, str], ToolResult]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        hints = call.spec.annotations
        if not (hints.read_only or hints.idempotent):
            return await call_next(call)
        key = (call.caller, call.key)
        cached = self._get(key)
        if cached is not None:
            return _copy(cached)
        result = await call_next(call)
        if not result.is_error:
            self._put(key, _copy(result))
        return result

    def _get(self, key: tuple[str, str]) -> ToolResult | None:
        with self._lock:
            if self.ttl is None:
                run = current_run()
                return None if run is None else self._runs.get(run, {}).get(key)
            entry = self._shared.get(key)
            if entry is None:
                return None
            if entry[0] < time.monotonic():
                del self._shared[key]
                return None
            return entry[1]

    def _put(self, key: tuple[str, str], result: ToolResult) -> None:
        with self._lock:
            if self.ttl is None:
                run = current_run()
                if run is not None:
                    kept = self._runs.setdefault(run, {})
                    if len(kept) < self.max_entries:
                        kept[key] = result
                return
            self._shared[key] = (time.monotonic() + self.ttl, result)
            while len(self._shared) > self.max_entries:
                self._shared.popitem(last=False)

    def clear(self) -> None:
        """Forget every kept result."""
        with self._lock:
            self._shared.clear()
            self._runs.clear()


def _copy(result: ToolResult) -> ToolResult:
    return dataclasses.replace(result, blocks=list(result.blocks), record=None, call_id="")
