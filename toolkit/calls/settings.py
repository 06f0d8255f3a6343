"""``RegistrySettings``: how a registry runs its calls, in one value.

A registry, its invoker and every view made with :meth:`ToolRegistry.filter` read the same
frozen settings object, so a new setting is one field here and nothing is copied by hand.
Per-call choices (a caller's policy, approver, timeout) are :class:`~toolkit.CallOptions`;
these are the defaults every call starts from.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict, Unpack

from toolkit.calls.processor import ExceptionProcessor
from toolkit.policy import Approver, Policy, default_policy
from toolkit.results.budget import DEFAULT_RESULT_BUDGET
from toolkit.results.store import MemoryResultStore, ResultStore

if TYPE_CHECKING:
    from toolkit.governance.middleware import Middleware

__all__ = ["DEFAULT_TIMEOUT", "RegistrySettings", "SettingsFields"]

#: Seconds a local tool may run when neither the tool nor the call sets a timeout.
DEFAULT_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrySettings:
    """The defaults every call of a registry starts from.

    Args:
        processor: Exception rules applied after each tool's own (default: a message for
            everything).
        policy: Decides ``"allow"``/``"deny"``/``"ask"`` per call (default: ask before
            destructive tools).
        approver: Answers ``"ask"`` (default: none, so ``"ask"`` denies).
        secrets: Values never shown in messages or records, such as API keys.
        timeout: Seconds a local function may run when neither its decorator nor the call sets
            a timeout (default 300; ``None``: no limit, and the cheapest sync call path).
        retry_wait: ``(initial, max)`` seconds of the exponential backoff between attempts.
        strict_output: A return value breaking its output schema fails the call, for tools that
            do not decide themselves (default ``False``: it reaches the model unstructured,
            with a warning).
        middleware: :class:`~toolkit.Middleware` around every call, outside each call's own
            (the first listed is the outermost); see ``docs/middleware.md``.
        result_budget: Characters of a result a model reads before it is cut to its head and
            tail (default 100,000, about 25,000 tokens; ``0``: never cut). See
            :mod:`toolkit.results.budget`.
        result_store: Where the full text of a cut result is kept for ``read_result`` (default:
            in memory for an hour; ``None``: nowhere). See :mod:`toolkit.results.store`.

    Example:
        >>> settings = RegistrySettings(timeout=None)
        >>> settings.replace(secrets=("sk-live-123",)).timeout is None
        True
    """

    processor: ExceptionProcessor = field(default_factory=ExceptionProcessor)
    policy: Policy = default_policy
    approver: Approver | None = None
    secrets: tuple[str, ...] = ()
    timeout: float | None = DEFAULT_TIMEOUT
    retry_wait: tuple[float, float] = (0.2, 2.0)
    strict_output: bool = False
    middleware: tuple[Middleware, ...] = ()
    result_budget: int = DEFAULT_RESULT_BUDGET
    # A store is where results live, not how calls run: two settings differing only by their
    # default stores are the same settings.
    result_store: ResultStore | None = field(default_factory=MemoryResultStore, compare=False)

    def __post_init__(self) -> None:
        # A list or a generator of secrets (or middleware) is accepted, and kept as a tuple.
        if not isinstance(self.secrets, tuple):
            object.__setattr__(self, "secrets", tuple(self.secrets))
        if not isinstance(self.middleware, tuple):
            object.__setattr__(self, "middleware", tuple(self.middleware))

    def replace(self, **changes: Unpack[SettingsFields]) -> RegistrySettings:
        """A copy with ``changes`` applied (field names as above).

        Raises:
            TypeError: A name is not a field of the settings.
        """
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]  # a list of secrets becomes a tuple


class SettingsFields(TypedDict, total=False):
    """The fields of :class:`RegistrySettings`, as keyword arguments."""

    processor: ExceptionProcessor
    policy: Policy
    approver: Approver | None
    secrets: tuple[str, ...] | list[str]
    timeout: float | None
    retry_wait: tuple[float, float]
    strict_output: bool
    middleware: Sequence[Middleware]
    result_budget: int
    result_store: ResultStore | None
