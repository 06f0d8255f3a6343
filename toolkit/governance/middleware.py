"""``Middleware``: code around the run step of every call, whatever the entry point.

The invoker looks a tool up, parses and validates the arguments, asks the policy and the
approver, and only then hands the call to the middleware chain; the innermost ``call_next``
runs the tool (timeout and retries included). A middleware may:

* read the tool's name, spec, validated arguments, context and options (:class:`ToolCall`);
* rewrite the arguments (``call_next(call.replace(arguments=...))``; they are validated again);
* rewrite or replace the result ``call_next`` gave;
* answer with its own :class:`~toolkit.ToolResult` without running the tool (the call record's
  ``answered_by`` then names it);
* raise: the exception becomes a coded error result through the exception rules, like a tool's.

Order: the registry's middleware (``ToolRegistry(middleware=[...])``) wraps the call's own
(``CallOptions(middleware=[...])``); in each list the first is the outermost. A run's budget
(:meth:`~toolkit.ToolRegistry.run`, ``build_agent(budget=...)``) is checked outside them all.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from toolkit.calls._redact import jsonable
from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext
from toolkit.result import ToolResult

if TYPE_CHECKING:
    from toolkit.calls.options import CallOptions

__all__ = ["CallNext", "Middleware", "ToolCall", "canonical_arguments"]


@dataclass(frozen=True, slots=True, init=False)
class ToolCall:
    """One call as a middleware sees it, after validation, policy and approval.

    Attributes:
        name: The tool's registry name.
        arguments: The validated arguments (injected values not included).
        context: The call's :class:`~toolkit.ToolContext` (caller values, call id...).
        options: The call's :class:`~toolkit.CallOptions`.
        spec: The tool's spec (annotations such as ``read_only`` and ``idempotent``).
    """

    name: str
    arguments: Mapping[str, Any]
    context: ToolContext
    options: CallOptions
    spec: ToolSpec

    def __init__(
        self,
        name: str,
        arguments: Mapping[str, Any],
        context: ToolContext,
        options: CallOptions,
        spec: ToolSpec,
    ) -> None:
        # Made for every call through middleware: the slots' own setters cost less than the
        # object.__setattr__ of a frozen dataclass's generated __init__.
        put = _CALL_SLOTS
        put[0](self, name)
        put[1](self, arguments)
        put[2](self, context)
        put[3](self, options)
        put[4](self, spec)

    def replace(self, **changes: Any) -> ToolCall:
        """A copy with ``changes`` applied, e.g. ``call.replace(arguments={...})``.

        Raises:
            TypeError: ``name`` or ``spec`` is changed: which tool runs was decided (and
                allowed) before the middleware; answer with a result instead.
        """
        if "name" in changes or "spec" in changes:
            raise TypeError(
                "A middleware cannot change which tool runs: replace arguments, context or "
                "options, or return a ToolResult of its own."
            )
        return dataclasses.replace(self, **changes)

    @property
    def caller(self) -> str:
        """Who made the call: the authenticated caller (``context.values["caller"]``), else
        the caller the sink named (a server's peer or header), else ``""`` (the process)."""
        named = self.context.values.get("caller")
        if named:
            return str(named)
        return self.options.caller or self.options.peer or ""

    @property
    def key(self) -> str:
        """The tool and its canonical arguments: equal for calls that ask the same thing."""
        return f"{self.name}:{canonical_arguments(self.arguments)}"


#: The setters of :class:`ToolCall`'s slots, in the order of its fields (its ``__init__``).
_CALL_SLOTS: tuple[Callable[[ToolCall, Any], None], ...] = tuple(
    vars(ToolCall)[f.name].__set__ for f in dataclasses.fields(ToolCall)
)

#: What ``on_call`` receives to go on: the rest of the chain, then the tool.
CallNext = Callable[[ToolCall], Awaitable[ToolResult]]


@runtime_checkable
class Middleware(Protocol):
    """Code around the run step of every call.

    Implement ``on_call``; to let ``call_sync`` keep running a plain function in the caller's
    thread, also set ``inline = True`` when ``on_call`` never awaits anything but
    ``call_next`` (no I/O). Without it, ``call_sync`` runs the call on the shared background
    event loop, where real I/O can be awaited.

    Example:
        >>> class Upper:
        ...     async def on_call(self, call, call_next):
        ...         result = await call_next(call)
        ...         result.content = result.content.upper()
        ...         return result
        >>> isinstance(Upper(), Middleware)
        True
    """

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        """Handle ``call``: usually ``return await call_next(call)``, with something around."""
        ...


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    """Arguments as one stable text: JSON with sorted keys, so key order does not matter.

    Example:
        >>> canonical_arguments({"b": 1, "a": [1, 2]})
        '{"a":[1,2],"b":1}'
    """
    try:  # validated arguments are plain JSON data but for a few values (dates, models)
        return _CANONICAL.encode(arguments)
    except (TypeError, ValueError, RecursionError):  # keys that are not strings, cycles
        return json.dumps(jsonable(arguments), sort_keys=True, separators=(",", ":"), default=str)


def _plain(value: Any) -> Any:
    plain = jsonable(value)
    return str(value) if plain is None else plain


#: ``json.dumps(..., sort_keys=True, separators=(",", ":"), default=_plain)`` without building
#: an encoder per call (a run's guard asks for every call's key).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=_plain)


def middleware_name(middleware: object) -> str:
    """How a record names a middleware: its ``name`` attribute, else its class name."""
    name = getattr(middleware, "name", None)
    return name if isinstance(name, str) and name else type(middleware).__name__
