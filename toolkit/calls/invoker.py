"""The single call path: look up → parse → validate → policy → approval → run → result.

Every sink (LangChain, LangGraph, the MCP server, the CLI) calls tools through here, so every
call is validated, guarded, timed, retried, recorded and turned into a message the same way.

The path is written once (:meth:`Invoker._pipeline`). :meth:`Invoker.call` awaits it;
:meth:`Invoker.call_sync` drives the very same steps in the caller's thread, blocking where the
async path suspends (see :mod:`toolkit.calls._waiting`), so a policy, an approver, a timeout, a retry
or a propagated exception behaves the same whichever entry point a sink uses.

Rules the path keeps:

* Arguments never raise: whatever arrives (invalid JSON, huge integers, deep nesting, bytes
  that are not UTF-8, values a validator chokes on) becomes ``PARSE_ERROR`` or
  ``INVALID_PARAMS``.
* Whatever a tool raises, ``SystemExit`` and other ``BaseException`` included, is a failed call.
  Only the caller's own cancellation, ``KeyboardInterrupt`` and the types in
  ``CallOptions.propagate`` leave the call path as exceptions.
* Text that leaves the process (messages, records, logged tracebacks) passes the processor's
  scrubber and has the registry's secrets and secret-named argument values masked; so does
  every argument value a call record keeps (:func:`toolkit.calls._redact.masked_arguments`).
* A local function stops being waited for after its own, the call's or the registry's timeout
  (300 s by default; ``None`` disables it).
* A caller only ever hears about the tools it may see (``CallOptions.hide_denied``, the rule
  in :mod:`toolkit.calls._visibility`): a tool hidden from it is ``TOOL_NOT_FOUND`` before its
  arguments are read or validated, and every message names its visible tools only.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from toolkit.calls import _arguments, _messages, _visibility
from toolkit.calls._effective import Effective
from toolkit.calls._loose_output import loose_output
from toolkit.calls._new_context import new_context
from toolkit.calls._new_record import new_call_record
from toolkit.calls._redact import (
    jsonable,
    masked_arguments,
    redact_text,
    secret_values,
)
from toolkit.calls._sync import run_sync
from toolkit.calls._waiting import ASYNC, SYNC, Waiting, drive
from toolkit.calls.options import DEFAULT_OPTIONS, CallOptions
from toolkit.calls.processor import Outcome
from toolkit.calls.settings import DEFAULT_TIMEOUT, RegistrySettings
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.governance import _middleware_chain
from toolkit.policy import Approval, CallRequest, Policy, default_policy
from toolkit.result import CallRecord, ToolResult
from toolkit.results.budget import budget_of, fit_result
from toolkit.schema._serialize import first_mismatch
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool, runs_inline

__all__ = ["DEFAULT_TIMEOUT", "Invoker", "new_call_id"]

log = logging.getLogger("toolkit.calls")


_ids = itertools.count(1)
_prefix = os.urandom(3).hex()


def new_call_id() -> str:
    """A short id, unique in this process, used as the correlation id of a call."""
    return f"{_prefix}-{next(_ids):x}"


class _Failed(Exception):
    """A failure before the tool ran (not found, parse, validation, denial)."""

    def __init__(self, error: ToolError, decision: str = "allow") -> None:
        super().__init__(error.message)
        self.error = error
        self.decision = decision


class Invoker:
    """Runs calls against a mapping of tools.

    Args:
        tools: The tools by name (the registry's live mapping).
        settings: The defaults every call starts from (processor, policy, approver, secrets,
            timeout, retry backoff, strict output); :attr:`settings` may be replaced later.
        on_record: Called with each :class:`CallRecord`.
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        settings: RegistrySettings | None = None,
        *,
        on_record: Callable[[CallRecord], None] | None = None,
    ) -> None:
        self.tools = tools
        self.settings = settings or RegistrySettings()
        self.on_record = on_record
        self._loose_warned: set[str] = set()

    # -- entry points: one path, two ways of waiting -------------------------------------------

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | bytes | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> ToolResult:
        """Call a tool; failures come back as error results unless a rule says raise."""
        return await self._pipeline(name, arguments, options, ASYNC)

    def call_sync(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | bytes | None,
        options: CallOptions = DEFAULT_OPTIONS,
    ) -> ToolResult:
        """:meth:`call`, blocking: local sync functions (and remote tools that wait inline)
        run right here (or in a worker thread when a timeout applies); other tools run on the
        shared background loop."""
        tool = self.tools.get(name)
        if (tool is None or tool.runs == "sync" or runs_inline(tool)) and (
            _middleware_chain.inline(self.settings.middleware, options.middleware)
        ):
            return drive(self._pipeline(name, arguments, options, SYNC))  # type: ignore[no-any-return]
        return run_sync(self.call, name, arguments, options)

    # -- the path ------------------------------------------------------------------------------

    async def _pipeline(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | bytes | None,
        options: CallOptions,
        wait: Waiting,
    ) -> ToolResult:
        started, t0 = time.time(), time.perf_counter()
        ref = options.call_id or new_call_id()
        ctx = _context(options.context, name, ref)
        effective = Effective.of(options, self.settings)
        args: Any = arguments
        decision, attempts, answered = "allow", 0, None
        try:
            if options.hide_denied:
                await self._require_visible(name, ctx, effective.policy, wait)
            tool = self._lookup(name)
            args = self._parse(arguments)
            args = self._validate(tool, args)
            policy = effective.policy
            verdict: Any
            if policy is default_policy:  # its answer without building a request to ask it
                request, verdict = None, "ask" if tool.spec.needs_approval else "allow"
            else:
                request = CallRequest(tool.name, args, tool.spec, ctx)
                verdict = policy(request)
            if verdict != "allow":  # "deny", "ask", or an async policy's awaitable
                request = request or CallRequest(tool.name, args, tool.spec, ctx)
                asked = time.perf_counter()
                try:
                    decision, args = await self._decide(tool, request, verdict, effective, wait)
                finally:  # time spent waiting for a person is not the call's duration
                    t0 += time.perf_counter() - asked
            chain = _middleware_chain.layers(self.settings.middleware, options.middleware)
            if chain:
                result, attempts, answered = await _middleware_chain.around(
                    self, chain, tool, args, ctx, options, ref, wait, effective
                )
            else:
                result, attempts = await self._run(tool, args, ctx, effective, ref, wait)
            result = self._fit(tool, result, options, ref, ctx)
        except _Failed as failed:
            result, decision = self._fail(name, failed.error, ref, args), failed.decision
        except BaseException:
            self._record(name, args, ref, None, "raised", attempts, decision, started, t0, options)
            raise
        result.tool, result.call_id = result.tool or name, ref
        result.record = self._record(
            name,
            args,
            ref,
            result.code,
            "error" if result.is_error else "ok",
            attempts,
            decision,
            started,
            t0,
            options,
            result.output_mismatch,
            answered,
            None if result.cut is None else result.cut.full_size,
        )
        return result

    # -- visibility (toolkit.calls._visibility) ------------------------------------------------------

    async def visible_names(
        self, context: ToolContext | None = None, policy: Policy | None = None
    ) -> list[str]:
        """The tools the policy (``policy`` or the invoker's) does not deny ``context``'s caller."""
        ctx = context or ToolContext()
        return await _visibility.visible(self.tools, policy or self.settings.policy, ctx, ASYNC)

    async def _require_visible(
        self, name: str, ctx: ToolContext, policy: Policy, wait: Waiting
    ) -> None:
        if not await _visibility.sees(self.tools, name, policy, ctx, wait):
            seen = await _visibility.visible(self.tools, policy, ctx, wait)
            raise _Failed(self._processed(_messages.tool_not_found(name, seen)))

    # -- steps ---------------------------------------------------------------------------------

    def _lookup(self, name: str) -> Tool:
        tool = self.tools.get(name)
        if tool is None:
            raise _Failed(self._processed(_messages.tool_not_found(name, list(self.tools))))
        try:
            tool.spec  # noqa: B018 - a function whose schema cannot be built fails here
        except RegistrationError as exc:
            log.error("tool %s cannot be called: %s", name, exc)
            raise _Failed(self._processed(_messages.misconfigured(name))) from None
        return tool

    def _parse(self, arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
        try:
            return _arguments.parse(arguments)
        except _arguments.ArgumentsRejected as exc:
            raise _Failed(self._processed(exc.error)) from None

    def _validate(self, tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._check(tool, args)
        except _Failed:
            raise
        except (Exception, RecursionError) as exc:  # hostile values a validator chokes on
            raise _Failed(self._processed(_arguments.unreadable(exc))) from None

    def _check(self, tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
        spec = tool.spec
        props = spec.parameters
        problems: list[ArgumentProblem] = []
        if not args.keys() <= props.keys():  # names the schema does not have
            extra = [k for k in args if k not in props]
            open_schema = bool(spec.input_schema.get("additionalProperties"))
            for key in extra:
                if key in spec.injected:
                    problems.append(_messages.injected_param(key))
                elif spec.options.unknown_params == "error" and not open_schema:
                    problems.append(_messages.unknown_param(key, spec))
            args = {k: v for k, v in args.items() if k in props or open_schema}
        validated: dict[str, Any] | None
        try:
            validated = tool.validate(args)
        except InvalidArguments as exc:
            validated, exc = _arguments.recover(tool, args, exc)
            if validated is None:
                problems.extend(exc.problems)
        if problems:
            raise _Failed(self._processed(_messages.invalid_params(spec, problems)))
        return validated  # type: ignore[return-value]

    async def _decide(
        self,
        tool: Tool,
        request: CallRequest,
        verdict: Any,
        effective: Effective,
        wait: Waiting,
    ) -> tuple[str, dict[str, Any]]:
        args = request.arguments
        decision = await wait.settle(verdict)
        if decision == "allow":
            return "allow", args
        if decision == "deny":
            raise _Failed(_denied("This call is not allowed by the application's policy."), "deny")
        answer = effective.approver
        if answer is None:
            raise _Failed(
                _denied(
                    "This call needs a human's approval and no one is available to approve it.",
                    "tell the user it needs approval.",
                ),
                "deny",
            )
        try:
            approval: Approval = await wait.settle(answer(request))
        except ToolError as error:  # an approver that could ask no one says why, as a denial
            raise _Failed(self._processed(error), "deny") from None
        if not approval.approved:
            reason = (approval.reason or "").strip()
            why = (
                f" Reason: {reason}{'' if reason.endswith(('.', '!', '?')) else '.'}"
                if reason
                else ""
            )
            raise _Failed(
                ToolError(
                    f"The user rejected this call.{why} Do not retry it unless the user asks.",
                    code=ErrorCode.DENIED,
                ),
                "rejected",
            )
        if approval.arguments is not None:
            return "edited", self._validate(tool, self._parse(approval.arguments))
        return "approved", args

    async def _run(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        effective: Effective,
        ref: str,
        wait: Waiting,
    ) -> tuple[ToolResult, int]:
        timeout = effective.timeout_for(tool)
        budget, attempt = tool.spec.options.retries, 0
        while True:
            attempt += 1
            ctx.attempt = attempt
            try:
                result: ToolResult = await wait.run(tool, args, ctx, timeout)
                if result.output_mismatch is not None:  # strict: raised as the tool's error
                    loose_output(tool, result, self.settings.strict_output, self._loose_warned)
                return result, attempt
            except effective.propagate:
                raise
            except (KeyboardInterrupt, GeneratorExit):
                raise
            except BaseException as exc:  # SystemExit from a tool is a failed call too
                if wait.cancelled(exc):
                    raise
                outcome = self._outcome(exc, tool, ref, args)
                if outcome.action == "raise":
                    raise
                if outcome.action == "retry":
                    budget = outcome.retries if outcome.retries is not None else max(budget, 1)
                if (outcome.action == "retry" or outcome.error.retryable) and attempt <= budget:
                    await wait.sleep(self._backoff(attempt))
                    continue
                return self._fail(tool.name, outcome.error, ref, args), attempt

    # -- helpers -------------------------------------------------------------------------------

    def _fit(
        self, tool: Tool, result: ToolResult, options: CallOptions, ref: str, ctx: ToolContext
    ) -> ToolResult:
        """The result cut to the call's budget (:mod:`toolkit.results.budget`); itself if it fits."""
        budget = budget_of(tool.spec, options, self.settings)
        result.tool = result.tool or tool.name
        store = self.settings.result_store
        return fit_result(result, budget, call_id=ref, context_values=ctx.values, store=store)

    def _outcome(self, exc: BaseException, tool: Tool, ref: str, args: Any) -> Outcome:
        own = tool.spec.options.processor
        processor = (
            own if own is not None and own.match(exc) is not None else self.settings.processor
        )
        outcome = processor.process(exc, ref=ref)
        if not isinstance(exc, ToolError) and log.isEnabledFor(logging.WARNING):
            trace = "".join(traceback.format_exception(exc)).rstrip()
            log.warning(
                "tool %s raised %s (ref %s)\n%s",
                tool.name,
                type(exc).__name__,
                ref,
                self._scrub(trace, args),
            )
        return outcome

    def _processed(self, error: ToolError) -> ToolError:
        """Give pre-call failures to the processor too (a rule may reword or raise them)."""
        outcome = self.settings.processor.process(error)
        if outcome.action == "raise":
            raise outcome.error
        return outcome.error

    def _backoff(self, attempt: int) -> float:
        """Seconds before attempt ``attempt + 1``: tenacity's exponential backoff with jitter.

        The retry loop itself is the call path's (written once for both entry points); tenacity
        computes the wait through its public ``Retrying`` and ``RetryCallState``.
        """
        # Imported on the first retry: tenacity's import loads its tornado support wherever
        # tornado is installed (every Jupyter environment), 40 ms of every start otherwise.
        from tenacity import RetryCallState, Retrying, wait_exponential, wait_random

        initial, cap = self.settings.retry_wait
        retrying = Retrying(
            wait=wait_exponential(multiplier=initial, max=cap) + wait_random(0, initial)
        )
        state = RetryCallState(retrying, fn=None, args=(), kwargs={})
        state.attempt_number = attempt
        return min(cap, float(retrying.wait(state)))

    def _scrub(self, text: str, args: Any) -> str:
        text = self.settings.processor.scrub(text)
        hidden = (*self.settings.secrets, *secret_values(jsonable(args)))
        return redact_text(text, hidden) if hidden else text

    def _clean(self, text: str) -> str:
        """One argument value as records keep it: scrubbed, the registry's secrets masked."""
        text = self.settings.processor.scrub(text)
        return redact_text(text, self.settings.secrets) if self.settings.secrets else text

    def _fail(self, tool: str, error: ToolError, ref: str, arguments: Any) -> ToolResult:
        result = ToolResult.failure(error, tool=tool, call_id=ref)
        result.content = self._scrub(_messages.frame(tool, error, ref), arguments)
        return result

    def _record(
        self,
        name: str,
        args: Any,
        ref: str,
        code: ErrorCode | None,
        outcome: Any,
        attempts: int,
        decision: str,
        started: float,
        t0: float,
        options: CallOptions,
        mismatch: ToolError | None = None,
        answered_by: str | None = None,
        full_size: int | None = None,
    ) -> CallRecord:
        record = new_call_record(
            call_id=ref,
            tool=name,
            arguments=masked_arguments(args, self._clean),
            outcome=outcome,
            code=code,
            duration_ms=(time.perf_counter() - t0) * 1000,
            attempts=attempts,
            decision=decision,
            started_at=started,
            output_mismatch=None if mismatch is None else first_mismatch(mismatch),
            answered_by=answered_by,
            full_size=full_size,
            caller=options.caller,
            peer=options.peer,
        )
        if log.isEnabledFor(logging.INFO):
            log.info("call %s %s -> %s%s", ref, name, outcome, f" {code.value}" if code else "")
        if self.on_record is not None:
            self.on_record(record)
        if options.on_record is not None:
            options.on_record(record)
        return record


def _denied(why: str, then: str = "tell the user it was refused.") -> ToolError:
    return ToolError(f"{why} Do not retry it; {then}", code=ErrorCode.DENIED)


def _context(context: ToolContext | None, name: str, ref: str) -> ToolContext:
    return new_context(name, ref) if context is None else context.for_call(name, ref)
