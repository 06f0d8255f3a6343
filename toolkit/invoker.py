"""The single call path: look up → parse → validate → policy → run (timeout, retries) → result.

Every sink (LangChain, LangGraph, the MCP server, the CLI) calls tools through here, so every
call is validated, guarded, timed, retried, recorded and turned into a message the same way.
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
from pydantic_core import to_jsonable_python
from tenacity import RetryCallState, wait_exponential_jitter

from toolkit import _messages
from toolkit._redact import redact_arguments, redact_text, secret_values
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool
from toolkit.policy import Approval, Approver, CallRequest, Policy, default_policy
from toolkit.processor import ExceptionProcessor, Outcome
from toolkit.result import CallRecord, ToolResult
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool

__all__ = ["Invoker", "new_call_id"]

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
        processor: Exception rules applied after each tool's own.
        policy: Decides allow / deny / ask for every validated call.
        approver: Answers ``"ask"``; without one, ``"ask"`` denies.
        secrets: Values never to show in messages (API keys of the application…).
        on_record: Called with each :class:`CallRecord`.
        retry_wait: ``(initial, max)`` seconds of the exponential backoff between attempts.
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        *,
        processor: ExceptionProcessor,
        policy: Policy = default_policy,
        approver: Approver | None = None,
        secrets: tuple[str, ...] = (),
        on_record: Callable[[CallRecord], None] | None = None,
        retry_wait: tuple[float, float] = (0.2, 2.0),
    ) -> None:
        self.tools = tools
        self.processor = processor
        self.policy = policy
        self.approver = approver
        self.secrets = secrets
        self.on_record = on_record
        self._wait = wait_exponential_jitter(multiplier=retry_wait[0], max=retry_wait[1])

    # -- public entry points -------------------------------------------------------------------

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        context: ToolContext | None = None,
        *,
        call_id: str | None = None,
        approver: Approver | None = None,
        policy: Policy | None = None,
        propagate: tuple[type[BaseException], ...] = (),
    ) -> ToolResult:
        """Call a tool; failures come back as error results unless a rule says raise."""
        started, t0 = time.time(), time.perf_counter()
        ref = call_id or new_call_id()
        ctx = _context(context, name, ref)
        tool: Tool | None = None
        args: Any = arguments
        decision, attempts = "allow", 0
        try:
            tool, args = self._prepare(name, arguments)
            decision, args = await self._decide(tool, args, ctx, policy, approver)
            result, attempts = await self._run(tool, args, ctx, propagate, ref)
        except _Failed as failed:
            result, decision = self._fail(name, failed.error, ref, arguments), failed.decision
        except BaseException:
            self._record(name, args, ref, None, "raised", attempts, decision, started, t0)
            raise
        return self._finish(name, args, ref, result, attempts, decision, started, t0)

    def call_inline(
        self,
        name: str,
        arguments: Mapping[str, Any] | str | None,
        context: ToolContext | None = None,
        *,
        call_id: str | None = None,
        policy: Policy | None = None,
    ) -> ToolResult | None:
        """Call a plain sync tool in this thread, or return ``None`` if it needs the event loop.

        The fast path of ``call_sync``: no thread hop, no loop. Taken only for a local sync
        function with no timeout, no retries, and a policy that simply allows it.
        """
        tool = self.tools.get(name)
        try:
            options = tool.spec.options if isinstance(tool, FunctionTool) else None
        except RegistrationError:
            return None  # the full path turns it into an error result
        if not (
            isinstance(tool, FunctionTool)
            and options is not None
            and not tool.is_async
            and options.timeout is None
            and options.retries == 0
            and options.processor is None
            and not any(r.action == "retry" for r in self.processor.rules)
        ):
            return None
        started, t0 = time.time(), time.perf_counter()
        ref = call_id or new_call_id()
        args: Any = arguments
        try:
            _, args = self._prepare(name, arguments)
            decision = (policy or self.policy)(CallRequest(name, args, tool.spec, _EMPTY))
            if decision != "allow":
                if inspect.iscoroutine(decision):
                    decision.close()  # an async policy: decided again on the event loop
                return None
            ctx = _context(context, name, ref)
            try:
                result = tool.call_inline(args, ctx)
            except Exception as exc:
                outcome = self._outcome(exc, tool, ref)
                if outcome.action == "raise":
                    raise
                result = self._fail(name, outcome.error, ref, args)
        except _Failed as failed:
            result = self._fail(name, failed.error, ref, arguments)
        except BaseException:
            self._record(name, args, ref, None, "raised", 1, "allow", started, t0)
            raise
        return self._finish(name, args, ref, result, 1, "allow", started, t0)

    # -- steps ---------------------------------------------------------------------------------

    def _prepare(self, name: str, arguments: Mapping[str, Any] | str | None) -> tuple[Tool, Any]:
        tool = self.tools.get(name)
        if tool is None:
            raise _Failed(self._processed(_messages.tool_not_found(name, list(self.tools))))
        try:
            tool.spec  # noqa: B018 - a function whose schema cannot be built fails here
        except RegistrationError as exc:
            log.error("tool %s cannot be called: %s", name, exc)
            raise _Failed(self._processed(_messages.misconfigured(name))) from None
        args = _parse(arguments)
        return tool, self._validate(tool, args)

    def _validate(self, tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
        spec = tool.spec
        props = spec.parameters
        problems: list[ArgumentProblem] = []
        extra = [k for k in args if k not in props]
        if extra:
            open_schema = bool(spec.input_schema.get("additionalProperties"))
            for key in extra:
                if key in spec.injected:
                    problems.append(_messages.injected_param(key))
                elif spec.options.unknown_params == "error" and not open_schema:
                    problems.append(_messages.unknown_param(key, spec))
            args = {k: v for k, v in args.items() if k in props or open_schema}
        try:
            validated = tool.validate(args)
        except InvalidArguments as exc:
            retried = (
                _decode_json_strings(tool, args, exc) if spec.options.coerce_json_strings else None
            )
            validated = None
            if retried is not None:
                try:
                    validated = tool.validate(retried)
                except InvalidArguments as again:
                    exc = again
            if validated is None:
                problems.extend(exc.problems)
        if problems:
            raise _Failed(self._processed(_messages.invalid_params(spec, problems)))
        return validated  # type: ignore[return-value]

    async def _decide(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        policy: Policy | None,
        approver: Approver | None,
    ) -> tuple[str, dict[str, Any]]:
        request = CallRequest(tool.name, args, tool.spec, ctx)
        decision = await _maybe_await((policy or self.policy)(request))
        if decision == "allow":
            return "allow", args
        if decision == "deny":
            raise _Failed(
                ToolError(
                    "This call is not allowed by the application's policy. Do not retry it; "
                    "tell the user it was refused.",
                    code=ErrorCode.DENIED,
                ),
                "deny",
            )
        answer = approver or self.approver
        if answer is None:
            raise _Failed(
                ToolError(
                    "This call needs a human's approval and no one is available to approve it. "
                    "Do not retry it; tell the user it needs approval.",
                    code=ErrorCode.DENIED,
                ),
                "deny",
            )
        approval: Approval = await _maybe_await(answer(request))
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
            return "edited", self._validate(tool, _parse(approval.arguments))
        return "approved", args

    async def _run(
        self,
        tool: Tool,
        args: dict[str, Any],
        ctx: ToolContext,
        propagate: tuple[type[BaseException], ...],
        ref: str,
    ) -> tuple[ToolResult, int]:
        options = tool.spec.options
        budget, attempt = options.retries, 0
        while True:
            attempt += 1
            ctx.attempt = attempt
            try:
                if options.timeout is None:
                    return await tool.call(args, ctx), attempt
                with anyio.move_on_after(options.timeout) as scope:
                    result = await tool.call(args, ctx)
                if not scope.cancelled_caught:
                    return result, attempt
                raise ToolError(
                    f"The tool did not finish within {options.timeout:g} s and was stopped.",
                    code=ErrorCode.TIMEOUT,
                )
            except propagate:
                raise
            except Exception as exc:
                outcome = self._outcome(exc, tool, ref)
                if outcome.action == "raise":
                    raise
                if outcome.action == "retry":
                    budget = outcome.retries if outcome.retries is not None else max(budget, 1)
                if (outcome.action == "retry" or outcome.error.retryable) and attempt <= budget:
                    await anyio.sleep(self._backoff(attempt))
                    continue
                return self._fail(tool.name, outcome.error, ref, args), attempt

    # -- helpers -------------------------------------------------------------------------------

    def _outcome(self, exc: Exception, tool: Tool, ref: str) -> Outcome:
        own = tool.spec.options.processor
        processor = own if own is not None and own.match(exc) is not None else self.processor
        outcome = processor.process(exc, ref=ref)
        if not isinstance(exc, ToolError):
            log.warning(
                "tool %s raised %s (ref %s)", tool.name, type(exc).__name__, ref, exc_info=exc
            )
        return outcome

    def _processed(self, error: ToolError) -> ToolError:
        """Give pre-call failures to the processor too (a rule may reword or raise them)."""
        outcome = self.processor.process(error)
        if outcome.action == "raise":
            raise outcome.error
        return outcome.error

    def _backoff(self, attempt: int) -> float:
        state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
        state.attempt_number = attempt
        return float(self._wait(state))

    def _fail(self, tool: str, error: ToolError, ref: str, arguments: Any) -> ToolResult:
        text = _messages.frame(tool, error, ref)
        hidden = (*self.secrets, *secret_values(arguments))
        if hidden:
            text = redact_text(text, hidden)
        result = ToolResult.failure(error, tool=tool, call_id=ref)
        result.content = text
        return result

    def _finish(
        self,
        name: str,
        args: Any,
        ref: str,
        result: ToolResult,
        attempts: int,
        decision: str,
        started: float,
        t0: float,
    ) -> ToolResult:
        result.tool, result.call_id = result.tool or name, ref
        outcome = "error" if result.is_error else "ok"
        result.record = self._record(
            name, args, ref, result.code, outcome, attempts, decision, started, t0
        )
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
    ) -> CallRecord:
        record = CallRecord(
            call_id=ref,
            tool=name,
            # Validated values (enums, models, dates) as JSON data: records go to logs and UIs.
            arguments=redact_arguments(to_jsonable_python(args, fallback=str)),
            outcome=outcome,
            code=code,
            duration_ms=(time.perf_counter() - t0) * 1000,
            attempts=attempts,
            decision=decision,
            started_at=started,
        )
        if log.isEnabledFor(logging.INFO):
            log.info("call %s %s -> %s%s", ref, name, outcome, f" {code.value}" if code else "")
        if self.on_record is not None:
            self.on_record(record)
        return record


_EMPTY = ToolContext()


def _context(context: ToolContext | None, name: str, ref: str) -> ToolContext:
    if context is None:
        return ToolContext(tool=name, call_id=ref)
    return dataclasses.replace(context, tool=name, call_id=context.call_id or ref)


def _parse(arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str | bytes):
        if not arguments.strip():
            return {}
        try:
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise _Failed(
                _messages.parse_error(f"invalid JSON: {exc.msg} at position {exc.pos}")
            ) from None
        if not isinstance(value, dict):
            raise _Failed(_messages.parse_error(f"got a JSON {type(value).__name__}"))
        return value
    raise _Failed(_messages.parse_error(f"got a {type(arguments).__name__}"))


def _decode_json_strings(
    tool: Tool, args: dict[str, Any], exc: InvalidArguments
) -> dict[str, Any] | None:
    """Arguments with JSON-string values decoded where an object or array was expected."""
    decoded = dict(args)
    changed = False
    for problem in exc.problems:
        key = problem.param.split(".", 1)[0]
        value = decoded.get(key)
        if not isinstance(value, str) or not _wants_structure(tool.spec.parameters.get(key)):
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            continue
        if isinstance(parsed, dict | list):
            decoded[key], changed = parsed, True
    return decoded if changed else None


def _wants_structure(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds or "array" in kinds:
        return "string" not in kinds
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return any(_wants_structure(s) for s in options) and not any(
        isinstance(s, dict) and s.get("type") == "string" for s in options
    )


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value
