"""``RegistrySettings``: how a registry runs its calls, in one value.

A registry, its invoker and every view made with :meth:`ToolRegistry.filter` read the same
frozen settings object, so a new setting is one field here and nothing is copied by hand.
Per-call choices (a caller's policy, approver, timeout) are :class:`~toolkit.CallOptions`;
these are the defaults every call starts from.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from toolkit.calls.processor import ExceptionProcessor
from toolkit.policy import Approver, Policy, default_policy

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

    def __post_init__(self) -> None:
        # A list or a generator of secrets is accepted, and kept as a tuple.
        if not isinstance(self.secrets, tuple):
            object.__setattr__(self, "secrets", tuple(self.secrets))

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
