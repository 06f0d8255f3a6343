"""What one call runs with, worked out once from its options and the registry's settings.

Each field of :class:`~toolkit.CallOptions` that is set wins over the registry's setting; a
timeout left :data:`~toolkit.UNSET` falls to the tool's own, then to the registry's (for tools
that run locally), while ``timeout=None`` given by the caller means no timeout at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.calls.options import DEFAULT_OPTIONS, CallOptions
from toolkit.calls.settings import RegistrySettings
from toolkit.calls.unset import UNSET, Unset
from toolkit.policy import Approver, Policy
from toolkit.tool import Tool

__all__ = ["Effective"]


@dataclass(frozen=True, slots=True)
class Effective:
    """The settings of one call: the caller's where given, the registry's otherwise."""

    policy: Policy
    approver: Approver | None
    timeout: float | Unset | None
    default_timeout: float | None
    propagate: tuple[type[BaseException], ...]

    @classmethod
    def of(cls, options: CallOptions, settings: RegistrySettings) -> Effective:
        """The call's settings, from its ``options`` over the registry's ``settings``."""
        if options is DEFAULT_OPTIONS:  # most calls: the registry's settings as they are
            last = _plain[0]
            if (
                last is not None
                and last.policy is settings.policy
                and last.approver is settings.approver
                and last.default_timeout is settings.timeout
            ):
                return last
        effective = cls(
            policy=options.policy or settings.policy,
            approver=options.approver or settings.approver,
            timeout=options.timeout,
            default_timeout=settings.timeout,
            propagate=options.propagate,
        )
        if options is DEFAULT_OPTIONS:
            _plain[0] = effective
        return effective

    def timeout_for(self, tool: Tool) -> float | None:
        """Seconds ``tool`` may run: the call's, else the tool's own, else the registry's.

        The registry's default applies to tools that run locally only; a remote tool keeps its
        own deadlines (see :data:`toolkit.tool.ToolRuns`).
        """
        if self.timeout is not UNSET:
            return self.timeout
        own = tool.spec.options.timeout
        if own is not None or tool.runs == "remote":
            return own
        return self.default_timeout


#: What the settings used last with no call options came to; it holds for settings with the
#: same policy, approver and timeout (the only settings it reads), and keeps nothing else alive.
_plain: list[Effective | None] = [None]
