"""The exception processor: turns every failure into a message a model can act on, or re-raises.

Rules are ordered; the first whose exception type matches decides::

    processor = (
        ExceptionProcessor()
        .on(PermissionError, message="You may not touch this warehouse; ask the user.")
        .on(ConnectionError, action="retry", retries=2)
        .on(KeyboardInterrupt, action="raise")
    )

Without a matching rule: a :class:`~toolkit.ToolError` passes through verbatim; any other exception
becomes ``EXECUTION_ERROR`` with its type and message (``mask_unexpected=True`` hides them behind
the correlation id, which the log also carries with the full traceback). Builtin
``ConnectionError`` and ``TimeoutError`` count as retryable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from toolkit.calls._redact import scrub_secrets
from toolkit.errors import ErrorCode, ToolError

__all__ = ["Action", "ExceptionProcessor", "Outcome", "Rule"]

Action = Literal["message", "raise", "retry"]
MessageFactory = Callable[[BaseException], str]

_RETRYABLE_BUILTINS: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError)


@dataclass(frozen=True, slots=True)
class Rule:
    """One processor rule (see :meth:`ExceptionProcessor.on`)."""

    exc_type: type[BaseException] | tuple[type[BaseException], ...]
    action: Action
    message: str | MessageFactory | None = None
    retries: int | None = None
    code: ErrorCode | None = None
    retryable: bool | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to do with a failure.

    Attributes:
        action: ``"message"`` (give ``error`` to the model), ``"raise"`` (re-raise the original
            exception) or ``"retry"`` (try again, at most ``retries`` more times, then message).
        error: The failure as the model will read it.
        retries: Retry budget for ``"retry"`` (``None``: the tool's own ``retries`` option).
    """

    action: Action
    error: ToolError
    retries: int | None = None


class ExceptionProcessor:
    """Ordered rules from exception types to actions, with a global strict mode.

    Args:
        always_raise: Re-raise every failure instead of returning a message (strict apps, tests).
        mask_unexpected: Hide the text of exceptions that are not :class:`ToolError` (and not
            matched by a rule with a message) behind a generic message with a correlation id.
        scrubber: Rewrites every message before a model, a record or a log sees it. The
            default masks secrets in plain text: ``password=…``, ``token: …``,
            ``Authorization: Bearer …``, ``user:pass@`` in URLs and well-known key formats
            (cloud, Git host, payment and model-provider keys, JWTs, private key blocks).
            ``None`` turns scrubbing off.
    """

    def __init__(
        self,
        *,
        always_raise: bool = False,
        mask_unexpected: bool = False,
        scrubber: Callable[[str], str] | None = scrub_secrets,
    ) -> None:
        self.always_raise = always_raise
        self.mask_unexpected = mask_unexpected
        self.scrubber = scrubber
        self._rules: list[Rule] = []

    def scrub(self, text: str) -> str:
        """``text`` through the scrubber (unchanged without one)."""
        return text if self.scrubber is None else self.scrubber(text)

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they are tried."""
        return tuple(self._rules)

    def on(
        self,
        exc_type: type[BaseException] | tuple[type[BaseException], ...],
        action: Action = "message",
        *,
        message: str | MessageFactory | None = None,
        retries: int | None = None,
        code: ErrorCode | str | None = None,
        retryable: bool | None = None,
    ) -> ExceptionProcessor:
        """Add a rule; rules added first win. Returns the processor for chaining.

        Args:
            exc_type: Exception class (or tuple of classes) the rule matches, subclasses included.
            action: ``"message"``, ``"raise"`` or ``"retry"``.
            message: Text for the model, or a function of the exception returning it; default:
                the exception's own message.
            retries: For ``"retry"``: how many more attempts (default: the tool's ``retries``,
                at least 1).
            code: Error code of the resulting message (default ``EXECUTION_ERROR``, or the
                ToolError's own).
            retryable: Whether the model may repeat the call (default by code).

        Raises:
            ValueError: On an unknown action or a negative retry count.
        """
        if action not in ("message", "raise", "retry"):
            raise ValueError(f"action must be 'message', 'raise' or 'retry', not {action!r}")
        if retries is not None and retries < 0:
            raise ValueError("retries must be 0 or more")
        self._rules.append(
            Rule(exc_type, action, message, retries, ErrorCode(code) if code else None, retryable)
        )
        return self

    def match(self, exc: BaseException) -> Rule | None:
        """The first rule matching ``exc``, if any."""
        for rule in self._rules:
            if isinstance(exc, rule.exc_type):
                return rule
        return None

    def process(self, exc: BaseException, *, ref: str = "") -> Outcome:
        """Decide what ``exc`` becomes.

        Args:
            exc: The failure.
            ref: The correlation id, quoted in masked messages.
        """
        rule = self.match(exc)
        error = _to_tool_error(exc, rule, mask=self.mask_unexpected, ref=ref)
        if self.scrubber is not None:
            clean = self.scrubber(error.message)
            if clean != error.message:
                error = ToolError(
                    clean, code=error.code, retryable=error.retryable, details=error.details
                )
        if self.always_raise:
            return Outcome("raise", error)
        if rule is None:
            return Outcome("message", error)
        return Outcome(rule.action, error, rule.retries)

    def __repr__(self) -> str:
        names = ", ".join(f"{_type_names(r.exc_type)}→{r.action}" for r in self._rules)
        flags = " always_raise" if self.always_raise else ""
        return f"ExceptionProcessor([{names}]{flags})"


def _type_names(t: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    return "|".join(x.__name__ for x in t) if isinstance(t, tuple) else t.__name__


def _to_tool_error(exc: BaseException, rule: Rule | None, *, mask: bool, ref: str) -> ToolError:
    """The model-facing error for ``exc``, shaped by ``rule`` when one matched."""
    if isinstance(exc, ToolError):
        base = exc
    elif mask and (rule is None or rule.message is None):
        base = ToolError(
            f"The tool failed with an internal error (ref {ref}). Retrying with the same "
            "arguments is unlikely to help; report the ref if it persists.",
            retryable=isinstance(exc, _RETRYABLE_BUILTINS),
        )
    else:
        text = str(exc).strip()
        base = ToolError(
            f"{type(exc).__name__}: {text}" if text else type(exc).__name__,
            retryable=isinstance(exc, _RETRYABLE_BUILTINS),
        )
    if rule is None:
        return base
    message = base.message
    if rule.message is not None:
        message = rule.message(exc) if callable(rule.message) else rule.message
    code = rule.code or base.code
    retryable = base.retryable if rule.retryable is None else rule.retryable
    if rule.action == "retry" and rule.retryable is None:
        retryable = True
    return ToolError(message, code=code, retryable=retryable, details=base.details)
