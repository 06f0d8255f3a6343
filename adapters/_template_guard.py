"""The limits of a template render, enforced inside Jinja2's immutable sandbox.

Used by HTTP response templates (:class:`~adapters.http.ResponseTemplate`, which documents
them for users) and by the templates of graph nodes (:mod:`adapters.langgraph.templates`).
Compile with :func:`compile_template` or :func:`compile_expression`, and render after
:func:`rendering` has set the budget. Rules (the one place they live):

* **Every loop counts.** Each item a ``{% for %}`` loop (recursive calls included) or a
  sequence filter (``list``, ``map``, ``select``, ``sort``, ``join``, ``sum``, ``batch`` ...)
  goes through, and each macro or ``caller()`` call, is one iteration of the render's budget.
  ``range()`` may not be longer than that budget.
* **Every size-producing operation is checked before it runs.** ``*``, ``+``, ``**``, ``%``,
  ``~``, the ``center``/``indent``/``wordwrap``/``replace``/``join``/``format``/``tojson``
  filters, the ``str`` methods that pad, join, replace or format, and ``lipsum()``: the size of
  the result is estimated from the arguments, and an operation whose result would be larger
  than the value limit is refused, so the memory is never taken. Integers stay below
  :data:`MAX_INT_BITS` bits.
* **No value built during a render is larger than the value limit**: ``max_output`` plus the
  size of the response. A list or dict written in the template, or returned by a call, is
  measured as the text it would print (shared parts counted each time they appear), so nested
  references cannot multiply.
* **Text produced counts, even when it is captured**: the text of every ``{{ }}`` and every
  piece of template text, also inside ``{% set %}`` blocks, macros and filter blocks, counts
  against four times the value limit.
* **The deadline holds**: it is checked at every size-producing operation and every few loop
  iterations; as each operation is bounded, a render stops shortly after its time is up.
* ``str`` methods other than the listed text methods, and methods of numbers, bytes or other
  objects, are refused (``(1).to_bytes(10**9)``); lists and dicts cannot be modified.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from types import BuiltinMethodType
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, nodes, pass_context
from jinja2.defaults import DEFAULT_FILTERS  # type: ignore[attr-defined]
from jinja2.environment import TemplateExpression
from jinja2.exceptions import SecurityError
from jinja2.parser import Parser
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import _PassArg, generate_lorem_ipsum
from jinja2.visitor import NodeTransformer

from adapters._template_sizes import (
    CONTAINER_METHODS,
    PLAIN_FILTERS,
    SEQUENCE_FILTERS,
    STR_METHODS,
    TEXT_FILTERS,
    format_size,
    percent_size,
    weight,
)

__all__ = [
    "MAX_INT_BITS",
    "TemplateLimitError",
    "compile_expression",
    "compile_template",
    "environment",
    "rendering",
]

#: The largest integer (in bits) a template may compute.
MAX_INT_BITS = 1 << 16


class TemplateLimitError(RuntimeError):
    """A render went past one of its limits."""


class _Budget:
    __slots__ = (
        "_value_limit",
        "data",
        "deadline",
        "iterations",
        "max_iterations",
        "max_output",
        "produced",
    )

    def __init__(self, data: Any, max_iterations: int, max_output: int, seconds: float) -> None:
        self.data = data
        self.iterations = 0
        self.max_iterations = max_iterations
        self.max_output = max_output
        self.produced = 0
        self._value_limit: int | None = None
        self.deadline = time.perf_counter() + seconds

    @property
    def value_limit(self) -> int:
        """``max_output`` plus the size of the response (measured once, when first needed)."""
        if self._value_limit is None:
            self._value_limit = self.max_output + weight(self.data, 1 << 62)
        return self._value_limit

    def step(self, count: int = 1) -> None:
        self.iterations += count
        if self.iterations > self.max_iterations:
            raise TemplateLimitError(f"more than {self.max_iterations} loop iterations")
        if count > 1 or not self.iterations & 63:
            self.check_time()

    def check_time(self) -> None:
        if time.perf_counter() > self.deadline:
            raise TemplateLimitError("render time limit reached")

    def size_of(self, value: Any) -> int:
        """About how many characters ``str(value)``: exact up to the value limit."""
        size = len(value) if type(value) is str else weight(value, self.max_output)
        if size > self.max_output:
            size = weight(value, self.value_limit)
        return size

    def allow(self, estimate: int, what: str) -> None:
        """Refuse an operation whose result would pass the value limit; check the time."""
        if estimate > self.max_output and estimate > self.value_limit:
            raise TemplateLimitError(
                f"{what} would be larger than {self.value_limit} characters (the value limit)"
            )
        self.check_time()

    def measure(self, value: Any, what: str) -> None:
        self.allow(self.size_of(value), what)

    def produce(self, value: Any) -> None:
        kind = type(value)
        if kind is str:
            self.produced += len(value)
        elif kind is int or kind is float:
            self.produced += 24
        else:
            self.produced += self.size_of(value)
        if self.produced > 4 * self.max_output and self.produced > 4 * self.value_limit:
            raise TemplateLimitError(
                f"more than {4 * self.value_limit} characters of output produced "
                "(text captured in the template included)"
            )


_BUDGET: ContextVar[_Budget] = ContextVar("template_budget")


@contextmanager
def rendering(data: Any, max_iterations: int, max_output: int, seconds: float) -> Iterator[_Budget]:
    """A fresh budget for rendering ``data``, current in this context while the block runs."""
    token = _BUDGET.set(_Budget(data, max_iterations, max_output, seconds))
    try:
        yield _BUDGET.get()
    finally:
        _BUDGET.reset(token)


def _budget() -> _Budget:
    # Outside a render (Jinja folding constants at compile time) this raises, so the
    # operation is left for render time, where the limits apply.
    return _BUDGET.get()


def _ticking(iterable: Iterable[Any], budget: _Budget) -> Iterator[Any]:
    for item in iterable:
        budget.step()
        yield item


def _charged(value: Any, budget: _Budget) -> Any:
    """``value`` for a filter that goes through it: sized ones are charged up front."""
    if isinstance(value, str | list | tuple | dict | range | set | frozenset):
        budget.step(len(value))
        return value
    return _ticking(value, budget) if isinstance(value, Iterable) else value


def _guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    offset = 0 if _PassArg.from_obj(function) is None else 1
    text = TEXT_FILTERS.get(name)
    sequence = name in SEQUENCE_FILTERS
    adds = SEQUENCE_FILTERS.get(name)

    @wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        if sequence:
            value = args[offset]
            if name == "join":
                return _join(budget, args, kwargs, offset, function)
            if name == "sum" and not isinstance(kwargs.get("start", 0), int | float):
                raise SecurityError("the sum filter adds numbers (start must be a number)")
            if adds is not None:
                budget.allow(adds(*args[offset:], **kwargs), f"the {name} filter")
            args = (*args[:offset], _charged(value, budget), *args[offset + 1 :])
            return function(*args, **kwargs)
        if text is not None:
            budget.allow(text(*args[offset:], **kwargs), f"the {name} filter")
            result = function(*args, **kwargs)
            budget.measure(result, f"the {name} filter")
            return result
        budget.check_time()
        return function(*args, **kwargs)

    return guarded


def _join(
    budget: _Budget,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    offset: int,
    function: Callable[..., Any],
) -> Any:
    items = list(_charged(args[offset], budget))
    separator = kwargs.get("d", args[offset + 1] if len(args) > offset + 1 else "")
    size = len(str(separator)) * max(len(items) - 1, 0) + budget.size_of(items)
    budget.allow(size, "the join filter")
    result = function(*args[:offset], items, *args[offset + 1 :], **kwargs)
    budget.measure(result, "the join filter")
    return result


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    """``lipsum()`` with its size checked first (``n`` paragraphs of up to ``max`` words)."""
    _budget().allow(int(n) * builtins.max(int(min), int(max)) * 16, "lipsum()")
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


def _range(*args: int) -> range:
    """``range()`` no longer than the render's iteration budget."""
    budget = _budget()
    values = range(*args)
    if len(values) > budget.max_iterations:
        raise TemplateLimitError(f"range() longer than {budget.max_iterations} loop iterations")
    return values


class _Environment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def call_binop(self, context: Context, operator_: str, left: Any, right: Any) -> Any:
        budget = _budget()
        if operator_ == "*":
            _check_multiply(budget, left, right)
        elif operator_ == "**":
            if (
                isinstance(left, int)
                and isinstance(right, int)
                and max(left.bit_length(), 1) * right > MAX_INT_BITS
            ):
                raise TemplateLimitError(f"a power larger than {MAX_INT_BITS} bits")
        elif operator_ == "+":
            if isinstance(left, str | list | tuple) and isinstance(right, str | list | tuple):
                size = budget.size_of(left) + budget.size_of(right)
                budget.allow(size, "'+'")
        elif isinstance(left, str):
            budget.allow(percent_size(left, right), "'%' formatting")
        return super().call_binop(context, operator_, left, right)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        target = getattr(__obj, "__wrapped__", __obj)
        check_result = True
        if isinstance(target, BuiltinMethodType) and target.__self__ is not None:
            name, owner = target.__name__, target.__self__
            if isinstance(owner, str):
                if name in ("format", "format_map"):
                    fields = (args[0] if args else {}) if name == "format_map" else (args, kwargs)
                    budget.allow(format_size(owner, fields), f"str.{name}()")
                elif name not in STR_METHODS:
                    raise SecurityError(f"str.{name}() is not allowed in response templates")
                elif (estimate := STR_METHODS[name]) is not None:
                    if name == "join" and args:
                        args = (list(_charged(args[0], budget)), *args[1:])
                    budget.allow(estimate(owner, *args, **kwargs), f"str.{name}()")
            elif not (isinstance(owner, list | tuple | dict) and name in CONTAINER_METHODS):
                raise SecurityError(
                    f"{type(owner).__name__}.{name}() is not allowed in response templates"
                )
        elif isinstance(__obj, Macro):
            budget.step()
            check_result = False
        elif isinstance(__obj, LoopContext):
            budget.step()
            if args:
                args = (_ticking(args[0], budget), *args[1:])
            check_result = False
        else:
            budget.check_time()
        result = super().call(__context, __obj, *args, **kwargs)
        if check_result:
            budget.measure(result, "a call's result")
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        # JSON objects: the key first (``order.items`` is the data, not dict.items), and no
        # exception on the hot path. Keys are data, never Python internals.
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def _check_multiply(budget: _Budget, left: Any, right: Any) -> None:
    for seq, times in ((left, right), (right, left)):
        if isinstance(seq, str | list | tuple) and isinstance(times, int):
            budget.allow(budget.size_of(seq) * max(times, 0), "'*'")
            return
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and left.bit_length() + right.bit_length() > MAX_INT_BITS
    ):
        raise TemplateLimitError(f"a product larger than {MAX_INT_BITS} bits")


@pass_context
def _loop(_context: Context, iterable: Any) -> Any:
    return _ticking(iterable, _budget())


@pass_context
def _value(_context: Context, value: Any) -> Any:
    _budget().measure(value, "a list or dict")
    return value


@pass_context
def _concat(_context: Context, parts: list[Any]) -> str:
    budget = _budget()
    budget.allow(sum(budget.size_of(part) for part in parts), "'~'")
    return "".join(str(part) for part in parts)


@pass_context
def _finalize(_context: Context, value: Any) -> Any:
    _BUDGET.get().produce(value)
    return value


def _filter(node: nodes.Node, name: str) -> nodes.Filter:
    return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)


class _Instrument(NodeTransformer):
    """Rewrites a parsed template so that loops, ``~``, literals and text are counted."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = _filter(node.iter, "_loop")
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _filter(nodes.List(node.nodes, lineno=node.lineno), "_concat")

    def visit_List(self, node: nodes.List) -> nodes.Node:
        self.generic_visit(node)
        return _filter(node, "_value")

    def visit_Dict(self, node: nodes.Dict) -> nodes.Node:
        self.generic_visit(node)
        return _filter(node, "_value")

    def visit_Tuple(self, node: nodes.Tuple) -> nodes.Node:
        self.generic_visit(node)
        return _filter(node, "_value") if node.ctx == "load" else node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [
            nodes.Const(child.data, lineno=child.lineno)
            if isinstance(child, nodes.TemplateData)
            else child
            for child in node.nodes
        ]
        return node


def instrument(template: nodes.Template) -> nodes.Template:
    """``template`` (parsed) rewritten so that every loop, literal and piece of text counts."""
    result = _Instrument().visit(template)
    assert isinstance(result, nodes.Template)
    return result


def _make_environment() -> _Environment:
    env = _Environment(
        autoescape=False,
        keep_trailing_newline=False,
        undefined=StrictUndefined,
        finalize=_finalize,
    )
    filters: dict[str, Callable[..., Any]] = {}
    for name in (*TEXT_FILTERS, *SEQUENCE_FILTERS, *PLAIN_FILTERS):
        filters[name] = _guard_filter(name, DEFAULT_FILTERS[name])
    filters.update(_loop=_loop, _value=_value, _concat=_concat)
    env.filters = filters
    env.globals["range"] = _range
    env.globals["lipsum"] = _lipsum
    return env


#: The environment every response template compiles in.
environment = _make_environment()


def compile_template(source: str | nodes.Template) -> Template:
    """``source`` compiled in :data:`environment`, rewritten so that the limits apply.

    Raises:
        TemplateSyntaxError: The template does not compile.
    """
    parsed = environment.parse(source) if isinstance(source, str) else source
    return environment.from_string(instrument(parsed))


def compile_expression(source: str) -> TemplateExpression:
    """A Jinja2 expression (``items | length``) as a function of its variables, with limits.

    Raises:
        TemplateSyntaxError: The expression does not compile.
    """
    parser = Parser(environment, source, state="variable")
    expression = parser.parse_expression()
    if not parser.stream.eos:
        raise TemplateSyntaxError(
            "chunk after expression", parser.stream.current.lineno, None, None
        )
    body = [nodes.Assign(nodes.Name("result", "store"), expression, lineno=1)]
    template = compile_template(nodes.Template(body, lineno=1))
    return TemplateExpression(template, undefined_to_none=False)
