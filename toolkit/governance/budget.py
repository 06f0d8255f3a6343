"""``RunBudget`` and ``Run``: what one run may spend, and what it has spent.

A *run* is one piece of work that makes several calls: an agent answering one user message,
a script inside ``with registry.run(budget=...)``, one caller of a server within a time window.
The run that is current (a context variable, so it follows tasks and LangGraph's worker threads)
is checked by the pipeline before every call, from every entry point; a run started while
another is current is nested in it, and its calls count against both.

Past a limit the call is not run: it is answered ``BUDGET_EXCEEDED`` (and the run stops: every
later call is answered the same way), so a model reads what ran out and answers with what it
has. The same tool with the same canonical arguments more than ``repeats`` times is answered
``REPEATED_CALL`` with the gist of its earlier result.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toolkit.errors import ErrorCode, ToolError

__all__ = ["Run", "RunBudget", "current_run"]

_current: contextvars.ContextVar[Run | None] = contextvars.ContextVar("toolkit_run", default=None)
_lock = threading.Lock()  # counts of a run change from worker threads too

#: How much of an earlier result a ``REPEATED_CALL`` answer quotes.
GIST_CHARS = 300


def current_run() -> Run | None:
    """The run the calls of this task or thread count against, if any."""
    return _current.get()


@dataclass(frozen=True, slots=True, kw_only=True)
class RunBudget:
    """Limits of one run; ``None`` (the default of each) means no limit.

    Args:
        calls: Tool calls in the run (nested calls included).
        per_tool: Calls of one tool, by tool name.
        repeats: Calls of one tool with the same canonical arguments; one more is answered
            ``REPEATED_CALL`` with the earlier result's gist instead of running.
        seconds: Wall time since the run started; a call starting later is not run.
        model_calls: Model calls of an agent's run (``build_agent(budget=...)``).
        tokens: Tokens (input plus output, from the model's usage) of an agent's run.
        window: On a server, each caller's run starts again every ``window`` seconds
            (default there: 3600).

    Example:
        >>> RunBudget.parse("calls=20,repeats=3,per_tool.search=5")
        RunBudget(calls=20, per_tool={'search': 5}, repeats=3)
    """

    calls: int | None = None
    per_tool: Mapping[str, int] = field(default_factory=dict)
    repeats: int | None = None
    seconds: float | None = None
    model_calls: int | None = None
    tokens: int | None = None
    window: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "per_tool", MappingProxyType(dict(self.per_tool)))
        for name in ("calls", "repeats", "seconds", "model_calls", "tokens", "window"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"RunBudget({name}={value!r}): a limit is 0 or more.")

    @classmethod
    def parse(cls, text: str) -> RunBudget:
        """A budget from ``"calls=50,repeats=3,seconds=120,per_tool.search=5,window=60"``
        (the spelling of ``toolkit serve --budget``).

        Raises:
            ValueError: A part is not ``name=number`` or names no limit.
        """
        values: dict[str, Any] = {}
        per_tool: dict[str, int] = {}
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            name, sep, raw = part.partition("=")
            name = name.strip()
            try:
                number = float(raw) if name in ("seconds", "window") else int(raw)
            except ValueError:
                number = None
            if not sep or number is None:
                raise ValueError(f"Budget part {part!r} is not NAME=NUMBER (e.g. calls=50).")
            if name.startswith("per_tool."):
                per_tool[name.removeprefix("per_tool.")] = int(number)
            elif name in _FIELDS:
                values[name] = number
            else:
                raise ValueError(
                    f"Budget part {part!r} names no limit; use {', '.join(_FIELDS)} or "
                    "per_tool.TOOL."
                )
        return cls(per_tool=per_tool, **values)

    def __repr__(self) -> str:
        shown = []
        for name in ("calls", "per_tool", "repeats", "seconds", "model_calls", "tokens", "window"):
            value = getattr(self, name)
            if name == "per_tool":
                value = dict(value) or None
            if value is not None:
                shown.append(f"{name}={value!r}")
        return f"RunBudget({', '.join(shown)})"


_FIELDS = ("calls", "repeats", "seconds", "model_calls", "tokens", "window")


class Run:
    """What one run has spent against its :class:`RunBudget`; a context manager that makes it
    the current run (``with`` or ``async with``).

    Attributes:
        budget: The limits.
        parent: The run that was current when this one was entered (its limits hold too).
        calls: Tool calls counted so far.
        per_tool: Calls counted so far, by tool name.
        model_calls: Model calls counted so far (agents).
        tokens: Tokens counted so far (agents).
        stopped: What ran out, once a limit stopped the run (``None`` while it goes on).
    """

    def __init__(self, budget: RunBudget | None = None, *, parent: Run | None = None) -> None:
        self.budget = budget or RunBudget()
        self.parent = parent
        self.started = time.monotonic()
        self.calls = 0
        self.per_tool: Counter[str] = Counter()
        self.model_calls = 0
        self.tokens = 0
        self.stopped: str | None = None
        self._seen: dict[str, list[Any]] = {}
        self._tokens: list[contextvars.Token[Run | None]] = []
        #: ``(registry middleware, chain)`` of this run's last call (see ``_middleware_chain``).
        self._chain: tuple[Any, Any] | None = None

    # -- scope ---------------------------------------------------------------------------------

    def __enter__(self) -> Run:
        self._tokens.append(self._set())
        return self

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._tokens.pop())

    async def __aenter__(self) -> Run:
        return self.__enter__()

    async def __aexit__(self, *exc: object) -> None:
        self.__exit__()

    @contextlib.contextmanager
    def current(self) -> Iterator[Run]:
        """Make this run current for the block: like ``with run``, but safe to enter from
        many tasks or threads at once (an agent's concurrent tool calls, a server's calls)."""
        token = self._set()
        try:
            yield self
        finally:
            _current.reset(token)

    def _set(self) -> contextvars.Token[Run | None]:
        if self.parent is None:
            parent = _current.get()
            self.parent = parent if parent is not self else None
        return _current.set(self)

    def chain(self) -> Iterator[Run]:
        """This run and the runs it is nested in, innermost first."""
        run: Run | None = self
        while run is not None:
            yield run
            run = run.parent

    @property
    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    # -- tool calls ----------------------------------------------------------------------------

    def admit(self, tool: str, key: str) -> ToolError | None:
        """Count a call of ``tool`` (``key``: the tool and its canonical arguments), or say why
        it may not run: ``BUDGET_EXCEEDED`` (the run stops) or ``REPEATED_CALL``."""
        with _lock:
            runs = list(self.chain())
            for run in runs:
                spent = run._spent(tool)
                if spent is not None:
                    for each in runs:
                        each.stopped = each.stopped or spent
                    return budget_exceeded(spent)
            repeated = None
            for run in runs:
                run.calls += 1
                run.per_tool[tool] += 1
                seen = run._seen.setdefault(key, [0, None])
                seen[0] += 1
                limit = run.budget.repeats
                if repeated is None and limit is not None and seen[0] > limit:
                    repeated = repeated_call(tool, seen[0] - 1, seen[1])
            return repeated

    def remember(self, key: str, result_text: str) -> None:
        """Keep the gist of the first result of ``key`` for a later ``REPEATED_CALL``."""
        for run in self.chain():
            seen = run._seen.get(key)
            if seen is not None and seen[1] is None:
                cut = len(result_text) > GIST_CHARS
                seen[1] = result_text[:GIST_CHARS] + ("…" if cut else "")

    def _spent(self, tool: str) -> str | None:
        if self.stopped is not None:
            return self.stopped
        budget = self.budget
        if budget.seconds is not None and self.elapsed >= budget.seconds:
            return f"the time limit of {budget.seconds:g} s"
        if budget.calls is not None and self.calls >= budget.calls:
            return f"the limit of {budget.calls} tool calls"
        limit = budget.per_tool.get(tool)
        if limit is not None and self.per_tool[tool] >= limit:
            return f"the limit of {limit} calls of tool {tool!r}"
        return None

    # -- model calls (agents) ------------------------------------------------------------------

    def count_model_call(self, tokens: int) -> None:
        """Count one model call that used ``tokens`` tokens, in this run and its parents."""
        with _lock:
            for run in self.chain():
                run.model_calls += 1
                run.tokens += tokens

    def model_limit(self, *, ahead: int = 0) -> str | None:
        """What stops the next model call (``ahead`` more calls already planned), if anything:
        model calls or tokens used up in this run or a parent."""
        for run in self.chain():
            budget = run.budget
            if budget.model_calls is not None and run.model_calls + ahead >= budget.model_calls:
                return f"the limit of {budget.model_calls} model calls"
            if budget.tokens is not None and run.tokens >= budget.tokens:
                return f"the limit of {budget.tokens} tokens"
        return None

    def to_dict(self) -> dict[str, Any]:
        """What the run spent, as plain data (for logs and notebooks)."""
        return {
            "calls": self.calls,
            "per_tool": dict(self.per_tool),
            "model_calls": self.model_calls,
            "tokens": self.tokens,
            "seconds": round(self.elapsed, 3),
            "stopped": self.stopped,
        }

    def __repr__(self) -> str:
        return f"Run({self.to_dict()})"


def budget_exceeded(spent: str) -> ToolError:
    """The ``BUDGET_EXCEEDED`` answer: what ran out, and what the model should do now."""
    return ToolError(
        f"This run's budget is used up ({spent}): the call was not run, and no other tool "
        "call will run. Do not call tools again: answer now with what you have found so far, "
        "and say what is still missing.",
        code=ErrorCode.BUDGET_EXCEEDED,
        details={"spent": spent},
    )


def repeated_call(tool: str, before: int, gist: str | None) -> ToolError:
    """The ``REPEATED_CALL`` answer, quoting the earlier result."""
    earlier = ""
    if gist:
        earlier = f" Its earlier result: {gist}{'' if gist.endswith(('.', '!', '?')) else '.'}"
    times = "once" if before == 1 else f"{before} times"
    return ToolError(
        f"You already called {tool} with these same arguments {times} in this run, so "
        f"it was not run again.{earlier} Use that result, call it with other arguments, or "
        "answer with what you have.",
        code=ErrorCode.REPEATED_CALL,
        details={"times": before},
    )
