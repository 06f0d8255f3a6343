"""``RateLimit``: at most so many calls per caller and per tool in a sliding time window."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Mapping

from toolkit.errors import ErrorCode, ToolError
from toolkit.governance.middleware import CallNext, ToolCall
from toolkit.result import ToolResult

__all__ = ["RateLimit"]

#: Most keys (callers, tools) remembered; the least recently used go first.
MAX_KEYS = 10_000


class RateLimit:
    """Middleware: refuse calls past a rate with ``RATE_LIMITED`` and when to retry.

    Args:
        per_caller: Calls one caller may make in ``window`` seconds (all tools together).
        per_tool: Calls of one tool in ``window`` seconds (all callers together): a number
            for every tool, or a mapping of tool name to number.
        window: The sliding window, in seconds.

    A refused call does not run and does not count; the result's ``error.details`` has
    ``retry_after`` (seconds) and the message says it.

    Example:
        >>> limit = RateLimit(per_caller=60, per_tool={"search": 10}, window=60)
    """

    name = "rate_limit"
    inline = True

    def __init__(
        self,
        *,
        per_caller: int | None = None,
        per_tool: int | Mapping[str, int] | None = None,
        window: float = 60.0,
    ) -> None:
        if window <= 0:
            raise ValueError(f"RateLimit(window={window!r}): give a window of more than 0 s.")
        self.per_caller = per_caller
        self.per_tool = per_tool
        self.window = window
        self._seen: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, text: str) -> RateLimit:
        """A rate limit from ``"caller=60,tool=100,tool.search=10,window=60"`` (the spelling of
        ``toolkit serve --rate-limit``): ``tool`` for every tool, ``tool.NAME`` for one.

        Raises:
            ValueError: A part is not ``name=number`` or names no limit.
        """
        per_caller: int | None = None
        every: int | None = None
        named: dict[str, int] = {}
        window = 60.0
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            name, _, raw = part.partition("=")
            name = name.strip()
            try:
                number = float(raw)
            except ValueError:
                raise ValueError(f"Rate limit part {part!r} is not NAME=NUMBER.") from None
            if name == "caller":
                per_caller = int(number)
            elif name == "tool":
                every = int(number)
            elif name.startswith("tool."):
                named[name.removeprefix("tool.")] = int(number)
            elif name == "window":
                window = number
            else:
                raise ValueError(
                    f"Rate limit part {part!r} names no limit; use caller, tool, tool.NAME or "
                    "window."
                )
        per_tool: int | dict[str, int] | None = every
        if named:
            per_tool = _EveryTool(named, every)
        return cls(per_caller=per_caller, per_tool=per_tool, window=window)

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        refusal = self._admit(call)
        if refusal is not None:
            return ToolResult.failure(refusal)
        return await call_next(call)

    def _tool_limit(self, tool: str) -> int | None:
        per_tool = self.per_tool
        if per_tool is None or isinstance(per_tool, int):  # before the slower Mapping check
            return per_tool
        if isinstance(per_tool, Mapping):
            return per_tool.get(tool)
        return per_tool

    def _admit(self, call: ToolCall) -> ToolError | None:
        per_caller, per_tool = self.per_caller, self._tool_limit(call.name)
        if per_caller is None and per_tool is None:
            return None
        now = time.monotonic()
        since = now - self.window
        with self._lock:
            mine = None if per_caller is None else self._window(("caller", call.caller), since)
            if mine is not None and per_caller is not None and len(mine) >= per_caller:
                return _limited("you", per_caller, self.window, mine[0] - since)
            tools = None if per_tool is None else self._window(("tool", call.name), since)
            if tools is not None and per_tool is not None and len(tools) >= per_tool:
                return _limited(f"tool {call.name}", per_tool, self.window, tools[0] - since)
            if mine is not None:
                mine.append(now)
            if tools is not None:
                tools.append(now)
        return None

    def _window(self, key: tuple[str, str], since: float) -> deque[float]:
        """The times of ``key``'s calls after ``since`` (older ones are dropped)."""
        seen = self._seen
        times = seen.get(key)
        if times is None:
            times = seen[key] = deque()
            if len(seen) > MAX_KEYS:
                seen.popitem(last=False)
            return times
        seen.move_to_end(key)
        while times and times[0] <= since:
            times.popleft()
        return times


class _EveryTool(dict[str, int]):
    """Limits by tool name, with a limit for the tools not named."""

    def __init__(self, named: dict[str, int], every: int | None) -> None:
        super().__init__(named)
        self.every = every

    def get(self, key: str, default: int | None = None) -> int | None:  # type: ignore[override]
        return super().get(key, self.every if default is None else default)


def _limited(who: str, limit: int, window: float, wait: float) -> ToolError:
    seconds = max(1, math.ceil(wait))
    return ToolError(
        f"Too many calls: {who} may make {limit} calls in {window:g} s. The call was not run; "
        f"try again in {seconds} s, or answer with what you have.",
        code=ErrorCode.RATE_LIMITED,
        details={"retry_after": seconds},
    )
