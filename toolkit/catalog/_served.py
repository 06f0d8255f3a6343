"""What resources and prompts share: a checked function schema, one way to run, completion."""

from __future__ import annotations

import functools
import inspect
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio

from toolkit.calls._workers import run_awaitable
from toolkit.calls.processor import ExceptionProcessor
from toolkit.context import ToolContext
from toolkit.decorator import where
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.tool import InvalidArguments

if TYPE_CHECKING:
    from toolkit.schema import FunctionSchema

__all__ = [
    "COMPLETION_TIMEOUT",
    "MAX_COMPLETIONS",
    "Completer",
    "Runner",
    "ServedRegistry",
    "bound_decorated",
    "completions_from",
    "decorated",
]

#: ``completer(value, context) -> candidates``: ``value`` is what the user typed so far and
#: ``context`` the other arguments already chosen. May be async.
Completer = Callable[[str, Mapping[str, str]], Iterable[str] | Awaitable[Iterable[str]]]

#: The protocol's limit on the values of one completion answer.
MAX_COMPLETIONS = 100

#: Seconds a completer may take (a resource's or prompt's shorter ``timeout`` wins).
COMPLETION_TIMEOUT = 10.0


class Runner:
    """A function with its schema: validates string arguments, runs it, maps its failures.

    Args:
        fn: The function (bound, for a method).
        kind: ``"resource"`` or ``"prompt"``, for messages.
        label: The name readers know it by (a URI template or a prompt name).
        description: Explicit description, else the docstring's.
        completers: Completion functions by parameter name.
        timeout: Seconds before a run fails with ``TIMEOUT`` (``None``: no limit).

    Raises:
        RegistrationError: A completer names a parameter the function does not have.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        kind: str,
        label: str,
        description: str | None,
        completers: Mapping[str, Completer],
        timeout: float | None,
    ) -> None:
        from toolkit.schema import build_function_schema

        self.fn = fn
        self.kind = kind
        self.label = label
        try:
            self.schema: FunctionSchema = build_function_schema(
                fn, description=description, output_schema=False
            )
        except RegistrationError:
            raise
        except Exception as exc:
            raise RegistrationError(
                f"Cannot serve {where(fn)} as a {kind}: {exc}. Give every parameter a "
                f"type hint that pydantic understands."
            ) from exc
        self.timeout = timeout
        self.completers = dict(completers)
        unknown = sorted(set(self.completers) - set(self.parameters))
        if unknown:
            raise RegistrationError(
                f"completions of {where(fn)} name {', '.join(unknown)}, which are not "
                f"parameters of the {kind} (its parameters: "
                f"{', '.join(self.parameters) or 'none'}). Fix the names in completions=."
            )

    @property
    def parameters(self) -> dict[str, dict[str, Any]]:
        """The JSON Schema of each parameter a client gives, by name."""
        props: dict[str, dict[str, Any]] = self.schema.input_schema.get("properties", {})
        return props

    @property
    def required(self) -> frozenset[str]:
        """Parameters without a default."""
        return frozenset(self.schema.input_schema.get("required", ()))

    async def run(
        self,
        arguments: Mapping[str, Any],
        *,
        processor: ExceptionProcessor,
        context: ToolContext | None = None,
    ) -> Any:
        """Validate ``arguments`` (strings are coerced to the hinted types) and call the function.

        Raises:
            ToolError: ``INVALID_PARAMS`` (wrong or missing arguments), ``TIMEOUT``, or the
                function's failure as the processor words it.
        """
        unknown = sorted(set(arguments) - set(self.parameters))
        if unknown:
            raise ToolError(
                f"The {self.kind} {self.label!r} has no argument {', '.join(unknown)}; its "
                f"arguments are: {', '.join(self.parameters) or 'none'}.",
                code=ErrorCode.INVALID_PARAMS,
            )
        try:
            values = self.schema.validate(dict(arguments))
        except InvalidArguments as exc:
            problems = "; ".join(f"{p.param}: {p.message}" for p in exc.problems)
            raise ToolError(
                f"Invalid arguments for the {self.kind} {self.label!r}: {problems}.",
                code=ErrorCode.INVALID_PARAMS,
            ) from None
        args, kwargs = self.schema.bind(values, context or ToolContext())
        try:
            with anyio.fail_after(self.timeout):
                if self.schema.is_async:
                    value = await self.fn(*args, **kwargs)
                else:  # off the loop, in the tools' worker threads; a timeout abandons it
                    value = await run_awaitable(functools.partial(self.fn, *args, **kwargs))
                    if inspect.isawaitable(value):
                        value = await value
        except TimeoutError:
            raise ToolError(
                f"The {self.kind} {self.label!r} did not finish within {self.timeout} seconds.",
                code=ErrorCode.TIMEOUT,
            ) from None
        except Exception as exc:
            raise processor.process(_without_paths(exc)).error from exc
        return value

    async def complete(
        self,
        argument: str,
        value: str,
        context: Mapping[str, str],
        caller: ToolContext | None = None,
    ) -> list[str]:
        """Candidates for ``argument`` starting from ``value`` (at most 100).

        A completer that declares a parameter annotated ``ToolContext`` gets ``caller`` there
        (the caller's context, as a tool or a resource function gets it), so it can scope
        what it offers; ``context`` stays the values of the other arguments.

        From the parameter's completer if it has one, else from its ``Literal``/``Enum`` choices
        (those starting with ``value``), else none. A completer runs as a function does: a sync
        one in a worker thread, never on the event loop, and within
        :data:`COMPLETION_TIMEOUT` (or the function's own shorter timeout); what it returns is
        read only up to :data:`MAX_COMPLETIONS` items (a generator is never drained).

        Raises:
            ToolError: ``TIMEOUT`` when the completer takes too long; else its own failure.
        """
        completer = self.completers.get(argument)
        if completer is None:
            return completions_from(self.parameters.get(argument, {}), value)
        limit = (
            COMPLETION_TIMEOUT if self.timeout is None else min(self.timeout, COMPLETION_TIMEOUT)
        )
        completer = _with_caller(completer, caller or ToolContext())
        try:
            with anyio.fail_after(limit):
                if inspect.iscoroutinefunction(completer):
                    found: Any = await completer(value, context)
                else:
                    found = await run_awaitable(_called_and_read, completer, value, context)
                    if not inspect.isawaitable(found):
                        return found  # type: ignore[no-any-return]
                    found = await found
                return await run_awaitable(_first, found)  # type: ignore[no-any-return]
        except TimeoutError:
            raise ToolError(
                f"Completing {argument!r} of the {self.kind} {self.label!r} took longer than "
                f"{limit} seconds.",
                code=ErrorCode.TIMEOUT,
            ) from None


def _with_caller(completer: Completer, caller: ToolContext) -> Completer:
    """``completer`` with the caller's context bound to its ``ToolContext`` parameter, if any."""
    name = _context_parameter(completer)
    if name is None:
        return completer
    bound: Any = functools.partial(completer, **{name: caller})
    if inspect.iscoroutinefunction(completer):

        async def call(value: str, context: Mapping[str, str]) -> Iterable[str]:
            return await bound(value, context)  # type: ignore[no-any-return]

        return call
    return bound  # type: ignore[no-any-return]


@functools.cache
def _context_parameter(completer: Completer) -> str | None:
    try:
        parameters = inspect.signature(completer).parameters.values()
        hints = inspect.get_annotations(completer, eval_str=True)  # type: ignore[arg-type]
    except (TypeError, ValueError, NameError):
        return None
    for parameter in parameters:
        hint = hints.get(parameter.name, parameter.annotation)
        if hint is ToolContext or hint == "ToolContext":
            return parameter.name
    return None


def _first(found: Iterable[Any]) -> list[str]:
    """At most :data:`MAX_COMPLETIONS` items of ``found``, as text; the rest is never read."""
    return [str(v) for v in itertools.islice(found, MAX_COMPLETIONS)]


def _called_and_read(completer: Completer, value: str, context: Mapping[str, str]) -> Any:
    """In a worker thread: the completer's candidates, or the awaitable it returned."""
    found = completer(value, context)
    return found if inspect.isawaitable(found) else _first(found)


def _without_paths(exc: Exception) -> Exception:
    """``exc`` without the local paths an ``OSError`` names (``[Errno 21] Is a directory:
    '/srv/docs/..'`` becomes ``[Errno 21] Is a directory``): the client learns what failed,
    not where this server keeps its files. Same type, so the processor's rules still match."""
    if not isinstance(exc, OSError) or (exc.filename is None and exc.filename2 is None):
        return exc
    try:
        bare = type(exc)(exc.errno, exc.strerror)
    except Exception:  # a subclass with its own constructor
        bare = OSError(exc.errno, exc.strerror)
    bare.__traceback__ = exc.__traceback__
    return bare


def completions_from(schema: Mapping[str, Any], value: str) -> list[str]:
    """The ``enum``/``const`` choices of a JSON Schema that start with ``value``."""
    choices: list[Any] = list(schema.get("enum", ()))
    if "const" in schema:
        choices.append(schema["const"])
    for option in schema.get("anyOf", ()):
        choices.extend(option.get("enum", ()))
    found = [str(c) for c in choices if c is not None and str(c).startswith(value)]
    return found[:MAX_COMPLETIONS]


def decorated(module: ModuleType, definition: Callable[[Any], Any]) -> list[Callable[..., Any]]:
    """Functions defined in ``module`` that carry a definition, by name."""
    return [
        value
        for _, value in sorted(vars(module).items())
        if getattr(value, "__module__", None) == module.__name__
        and callable(value)
        and definition(value) is not None
    ]


def bound_decorated(obj: Any, definition: Callable[[Any], Any]) -> list[Callable[..., Any]]:
    """Decorated methods of ``obj``'s class, bound to ``obj``."""
    found = []
    for name in sorted(dir(type(obj))):
        raw = getattr(type(obj), name, None)
        if raw is not None and definition(raw) is not None:
            found.append(getattr(obj, name))
    return found


log = logging.getLogger(__name__)
T = TypeVar("T")


class ServedRegistry(Generic[T]):
    """What the resource and prompt registries share: items by key in registration order, the
    exception processor their functions' failures go through, and change listeners.

    A listener that raises is logged and never undoes the change nor stops the others.
    """

    def __init__(self, processor: ExceptionProcessor | None = None) -> None:
        self.processor = processor or ExceptionProcessor()
        self._items: dict[str, T] = {}
        self._listeners: list[Callable[[], None]] = []

    def _add(self, key: str, item: T, clash: Callable[[T], str]) -> T:
        taken = self._items.get(key)
        if taken is not None:
            raise RegistrationError(clash(taken))
        self._items[key] = item
        self._changed()
        return item

    def _pop(self, key: str) -> T:
        item = self._items.pop(key)
        self._changed()
        return item

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` when items are added or removed; returns the unsubscriber."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:
                log.exception("change listener %r failed", listener)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items.values()))
