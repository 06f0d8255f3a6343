"""The middleware chain around the invoker's run step (see :mod:`toolkit.governance.middleware`).

The invoker asks :func:`layers` for the chain of a call (the current run's guard, the
registry's middleware, the call's) and, when there is one, hands its run step to
:func:`around`. With no run and no middleware the invoker runs the tool directly: the chain
costs nothing then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial
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
    if not call:
        if run is None:
            return registry if isinstance(registry, tuple) else tuple(registry)
        last = run._chain
        if last is not None and last[0] is registry:
            return last[1]  # type: ignore[no-any-return]  # the run's chain for this registry
        chain = (RunGuard(run), *registry)
        run._chain = (registry, chain)
        return chain
    guard: tuple[Middleware, ...] = () if run is None else (RunGuard(run),)
    return (*guard, *registry, *call)


def inline(registry: Sequence[Middleware], call: Sequence[Middleware] | None) -> bool:
    """Whether every middleware of a call declares it never awaits anything but ``call_next``
    (so ``call_sync`` may drive the chain in the caller's thread).

    A middleware's ``inline`` is read once per registry tuple: it says what ``on_call`` is.
    """
    global _last_inline
    if call:
        return all(getattr(m, "inline", False) for m in (*registry, *call))
    if not registry:
        return True
    last = _last_inline
    if registry is last[0]:
        return last[1]
    answer = all(getattr(m, "inline", False) for m in registry)
    if isinstance(registry, tuple):  # immutable: the answer holds as long as it lives
        _last_inline = (registry, answer)
    return answer


#: The registry tuple asked about last and its answer (kept, so its id is not reused).
_last_inline: tuple[Sequence[Middleware] | None, bool] = (None, True)


class _Prepared:
    """What a chain needs per layer, worked out once per chain: the hooks and the names."""

    __slots__ = ("chain", "hooks", "names")

    def __init__(self, chain: tuple[Middleware, ...]) -> None:
        self.chain = chain
        self.hooks: tuple[Callable[[ToolCall, CallNext], Awaitable[ToolResult]], ...] = tuple(
            m.on_call for m in chain
        )
        self.names = tuple(middleware_name(m) for m in chain)


#: The chain prepared last (most calls of a process go through the same chain).
_last_prepared: list[_Prepared | None] = [None]


def _prepared(chain: tuple[Middleware, ...]) -> _Prepared:
    last = _last_prepared[0]
    if last is not None and last.chain is chain:
        return last
    prepared = _last_prepared[0] = _Prepared(chain)
    return prepared


class _Pass:
    """One call going through the chain: what the layers share, and what they found out."""

    __slots__ = (
        "answered",
        "args",
        "attempts",
        "effective",
        "hooks",
        "inner",
        "invoker",
        "names",
        "options",
        "ran",
        "ref",
        "tool",
        "wait",
    )

    def __init__(
        self,
        invoker: Invoker,
        prepared: _Prepared,
        tool: Tool,
        args: dict[str, Any],
        options: CallOptions,
        ref: str,
        wait: Waiting,
        effective: Effective | None,
    ) -> None:
        self.invoker, self.tool, self.args, self.options = invoker, tool, args, options
        self.ref, self.wait, self.effective = ref, wait, effective
        self.hooks, self.names = prepared.hooks, prepared.names
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
    state = _Pass(invoker, _prepared(chain), tool, args, options, ref, wait, effective)
    first = ToolCall(tool.name, args, ctx, options, tool.spec)
    try:
        result = await _enter(state, 0, first) if state.hooks else await _innermost(state, first)
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


async def _enter(state: _Pass, index: int, call: ToolCall) -> ToolResult:
    """Layer ``index`` of the chain; its ``call_next`` is this function for the next index,
    the run step (:func:`_innermost`) for the last layer."""
    after = index + 1
    last = after == len(state.hooks)
    call_next = partial(_innermost, state) if last else partial(_enter, state, after)
    try:
        result = await state.hooks[index](call, call_next)
    except BaseException as exc:
        if exc is not state.inner and state.answered is None:
            state.answered = state.names[index]
        raise
    if not isinstance(result, ToolResult):
        name = state.names[index]
        state.answered = state.answered or name
        raise TypeError(f"middleware {name} returned {type(result).__name__}, not a ToolResult")
    if not state.ran and state.answered is None:
        state.answered = state.names[index]
    return result


async def _innermost(state: _Pass, call: ToolCall) -> ToolResult:
    invoker, tool, ref = state.invoker, state.tool, state.ref
    arguments = call.arguments
    if arguments is not state.args:  # rewritten: the tool still only gets valid arguments
        try:
            arguments = invoker._validate(tool, dict(arguments))
        except Exception as exc:
            error = getattr(exc, "error", None)
            if not isinstance(error, ToolError):
                raise
            return invoker._fail(tool.name, error, ref, arguments)
    state.ran = True
    try:
        settings = state.effective  # worked out once, unless a middleware changed the options
        if settings is None or call.options is not state.options:
            settings = Effective.of(call.options, invoker.settings)
        result, state.attempts = await invoker._run(
            tool, dict(arguments), call.context, settings, ref, state.wait
        )
    except BaseException as exc:
        state.inner = exc
        raise
    return result
