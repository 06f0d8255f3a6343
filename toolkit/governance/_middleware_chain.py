"""The middleware chain around the invoker's run step (see :mod:`toolkit.governance.middleware`).

The invoker asks :func:`layers` for the chain of a call (the current run's guard, the
registry's middleware, the call's) and, when there is one, hands its run step to
:func:`around`. With no run and no middleware the invoker runs the tool directly: the chain
costs nothing then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.calls._effective import Effective
from toolkit.calls.options import CallOptions
from toolkit.context import ToolContext
from toolkit.errors import ToolError
from toolkit.governance.budget import Run, current_run
from toolkit.governance.middleware import CallNext, Middleware, ToolCall, middleware_name
from toolkit.result import ToolResult
from toolkit.tool import Tool

if TYPE_CHECKING:
    from toolkit.calls._waiting import Waiting
    from toolkit.calls.invoker import Invoker

__all__ = ["RunGuard", "around", "inline", "layers"]

RunStep = Callable[..., Awaitable[tuple[ToolResult, int]]]


class RunGuard:
    """The current run's budget and loop check, outermost in every chain while a run is on."""

    name = "budget"
    inline = True

    def __init__(self, run: Run) -> None:
        self.run = run

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        key = call.key
        refusal = self.run.admit(call.name, key)
        if refusal is not None:
            return ToolResult.failure(refusal)
        result = await call_next(call)
        self.run.remember(key, result.content)
        return result


def layers(
    registry: Sequence[Middleware], call: Sequence[Middleware] | None
) -> tuple[Middleware, ...]:
    """The chain of one call, outermost first: the run's guard, the registry's, the call's."""
    run = current_run()
    if run is None and not registry and not call:
        return ()
    guard: tuple[Middleware, ...] = () if run is None else (RunGuard(run),)
    return (*guard, *registry, *(call or ()))


def inline(registry: Sequence[Middleware], call: Sequence[Middleware] | None) -> bool:
    """Whether every middleware of a call declares it never awaits anything but ``call_next``
    (so ``call_sync`` may drive the chain in the caller's thread)."""
    if not registry and not call:
        return True
    return all(getattr(m, "inline", False) for m in (*registry, *(call or ())))


class _State:
    __slots__ = ("answered", "attempts", "inner", "ran")

    def __init__(self) -> None:
        self.ran = False
        self.attempts = 0
        self.inner: BaseException | None = None
        self.answered: str | None = None


async def around(
    invoker: Invoker,
    chain: tuple[Middleware, ...],
    tool: Tool,
    args: dict[str, Any],
    ctx: ToolContext,
    options: CallOptions,
    ref: str,
    wait: Waiting,
    effective: Effective | None = None,
) -> tuple[ToolResult, int, str | None]:
    """Run ``chain`` around the invoker's run step.

    Returns:
        The result, the attempts of the tool (0 when it did not run) and the name of the
        middleware that answered or failed instead of the tool (``None`` when the tool did).
    """
    state = _State()

    async def innermost(call: ToolCall) -> ToolResult:
        arguments = call.arguments
        if arguments is not args:  # rewritten: the tool still only gets valid arguments
            try:
                arguments = invoker._validate(tool, dict(arguments))
            except Exception as exc:
                error = getattr(exc, "error", None)
                if not isinstance(error, ToolError):
                    raise
                return invoker._fail(tool.name, error, ref, arguments)
        state.ran = True
        try:
            settings = effective  # worked out once, unless a middleware changed the options
            if settings is None or call.options is not options:
                settings = Effective.of(call.options, invoker.settings)
            result, state.attempts = await invoker._run(
                tool, dict(arguments), call.context, settings, ref, wait
            )
        except BaseException as exc:
            state.inner = exc
            raise
        return result

    call_next: CallNext = innermost
    for middleware in reversed(chain):
        call_next = _layer(middleware, call_next, state)
    first = ToolCall(tool.name, args, ctx, options, tool.spec)
    try:
        result = await call_next(first)
    except BaseException as exc:
        if exc is state.inner or isinstance(exc, options.propagate) or wait.cancelled(exc):
            raise
        if isinstance(exc, KeyboardInterrupt | GeneratorExit):
            raise
        outcome = invoker._outcome(exc, tool, ref, args)
        if outcome.action == "raise":
            raise
        return invoker._fail(tool.name, outcome.error, ref, args), state.attempts, state.answered
    error = result.error
    if state.answered is not None and error is not None and result.content == error.message:
        result = invoker._fail(tool.name, error, ref, args)  # framed like the invoker's own
    return result, state.attempts, state.answered


def _layer(middleware: Middleware, call_next: CallNext, state: _State) -> CallNext:
    name = middleware_name(middleware)

    async def layer(call: ToolCall) -> ToolResult:
        try:
            result = await middleware.on_call(call, call_next)
        except BaseException as exc:
            if exc is not state.inner and state.answered is None:
                state.answered = name
            raise
        if not isinstance(result, ToolResult):
            state.answered = state.answered or name
            raise TypeError(f"middleware {name} returned {type(result).__name__}, not a ToolResult")
        if not state.ran and state.answered is None:
            state.answered = name
        return result

    return layer
