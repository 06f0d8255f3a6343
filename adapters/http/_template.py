"""Response templates: :class:`ResponseTemplate`, Jinja2 in its sandbox, with limits.

A template turns the JSON an endpoint returns into text for the model. It is compiled once, at
load time, in Jinja2's :class:`~jinja2.sandbox.SandboxedEnvironment` (attribute access to
Python internals is refused), and each render is bounded: loop iterations, output size and
render time. A render that fails or hits a limit returns the raw JSON with a one-line note,
never an exception.
"""

from __future__ import annotations

import json
import operator
import time
from collections.abc import Iterator
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError
from jinja2.sandbox import SandboxedEnvironment

__all__ = ["ResponseTemplate", "TemplateLimitError"]

#: Default limits of one render.
MAX_ITERATIONS = 100_000
MAX_OUTPUT = 100_000
MAX_SECONDS = 0.5


class TemplateLimitError(RuntimeError):
    """A render went past one of its limits."""


class _Budget:
    __slots__ = ("deadline", "iterations", "max_iterations")

    def __init__(self, max_iterations: int, seconds: float) -> None:
        self.iterations = 0
        self.max_iterations = max_iterations
        self.deadline = time.perf_counter() + seconds

    def tick(self) -> None:
        self.iterations += 1
        if self.iterations > self.max_iterations:
            raise TemplateLimitError(f"more than {self.max_iterations} loop iterations")
        if not self.iterations & 1023 and time.perf_counter() > self.deadline:
            raise TemplateLimitError("render time limit reached")

    def range(self, *args: int) -> Iterator[int]:
        for value in range(*args):
            self.tick()
            yield value


class _Counted(list[Any]):
    """A JSON array whose iteration counts against the render's budget."""

    __slots__ = ("budget",)

    def __init__(self, items: list[Any], budget: _Budget) -> None:
        super().__init__(items)
        self.budget = budget

    def __iter__(self) -> Iterator[Any]:
        budget = self.budget
        for item in super().__iter__():
            budget.tick()
            yield item


def _deep(value: Any, budget: _Budget) -> Any:
    """The JSON value with every array counted (objects rebuilt only when they hold one)."""
    kind = type(value)
    if kind is list:
        return _Counted([_deep(v, budget) for v in value], budget)
    if kind is dict:
        if any(type(v) is list or type(v) is dict for v in value.values()):
            return {k: _deep(v, budget) for k, v in value.items()}
        return value
    return value


class _Environment(SandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        if operator_ == "**" and isinstance(right, int) and right > 64:
            raise TemplateLimitError("exponent too large")
        if operator_ == "*":
            for a, b in ((left, right), (right, left)):
                if (
                    isinstance(a, str | list | tuple)
                    and isinstance(b, int)
                    and len(a) * b > MAX_OUTPUT
                ):
                    raise TemplateLimitError("repeated value too large")
            return operator.mul(left, right)
        return super().call_binop(context, operator_, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        # JSON objects: the key first (``order.items`` is the data, not dict.items), and no
        # exception on the hot path. Keys are data, never Python internals.
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_ENV = _Environment(autoescape=False, keep_trailing_newline=False, undefined=StrictUndefined)
_ENV.undefined = StrictUndefined
_ENV.globals.pop("range", None)


class ResponseTemplate:
    """A Jinja2 template for JSON responses, compiled once and rendered in the sandbox.

    The response JSON is the template's context: an object's keys are variables; any other
    value is available as ``data`` (an object is also available as ``data``).

    Args:
        source: The template text.
        max_iterations: Loop iterations allowed per render.
        max_output: Characters of output allowed per render.
        max_seconds: Render time allowed.

    Raises:
        TemplateSyntaxError: The template does not compile (the message gives the line).
    """

    def __init__(
        self,
        source: str,
        *,
        max_iterations: int = MAX_ITERATIONS,
        max_output: int = MAX_OUTPUT,
        max_seconds: float = MAX_SECONDS,
    ) -> None:
        self.source = source
        self.max_iterations = max_iterations
        self.max_output = max_output
        self.max_seconds = max_seconds
        self._template = _ENV.from_string(source)

    @staticmethod
    def syntax_problem(source: str) -> str | None:
        """The syntax error of ``source`` with its line, or ``None`` if it compiles."""
        try:
            _ENV.parse(source)
        except TemplateSyntaxError as exc:
            return f"line {exc.lineno}: {exc.message}"
        return None

    def render(self, data: Any) -> str:
        """Render ``data``; on failure, the raw JSON and a one-line note of the error."""
        try:
            return self.render_strict(data)
        except Exception as exc:
            raw = json.dumps(data, ensure_ascii=False, default=str)
            note = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return f"{raw[: self.max_output]}\n(response template failed: {note})"

    def render_strict(self, data: Any) -> str:
        """Render ``data`` or raise (template errors, :class:`TemplateLimitError`)."""
        budget = _Budget(self.max_iterations, self.max_seconds)
        counted = _deep(data, budget)
        if isinstance(counted, dict):
            variables = {str(k): v for k, v in counted.items()}
            variables.setdefault("data", counted)
        else:
            variables = {"data": counted}
        variables["range"] = budget.range
        parts: list[str] = []
        size = 0
        for chunk in self._template.generate(variables):
            size += len(chunk)
            if size > self.max_output:
                raise TemplateLimitError(f"output longer than {self.max_output} characters")
            parts.append(chunk)
            if time.perf_counter() > budget.deadline:
                raise TemplateLimitError("render time limit reached")
        return "".join(parts)

    def __repr__(self) -> str:
        return f"ResponseTemplate({self.source[:40]!r})"
