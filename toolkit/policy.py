"""Who may run what: call policies and human approval.

A policy sees every call after its arguments are valid and before the tool runs, and answers
``"allow"``, ``"deny"`` or ``"ask"``. ``"ask"`` hands the call to an :data:`Approver` (a human,
through LangGraph's ``interrupt``, a terminal prompt, a web UI…). Without an approver, ``"ask"``
is a denial: nothing destructive runs because nobody was there to say no.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext

__all__ = ["Approval", "Approver", "CallRequest", "Decision", "Policy", "default_policy"]

Decision = Literal["allow", "deny", "ask"]


@dataclass(frozen=True, slots=True)
class CallRequest:
    """A validated call awaiting a decision.

    Attributes:
        tool: The tool name.
        arguments: Validated arguments (JSON-able).
        spec: The tool's spec (annotations say whether it is destructive).
        context: The call's context.
    """

    tool: str
    arguments: dict[str, Any]
    spec: ToolSpec
    context: ToolContext


@dataclass(frozen=True, slots=True)
class Approval:
    """A human's answer to ``"ask"``.

    Attributes:
        approved: Run the call (``True``) or refuse it.
        arguments: Edited arguments to run with instead (validated again), if any.
        reason: Why it was refused; the model reads it.
    """

    approved: bool
    arguments: dict[str, Any] | None = None
    reason: str | None = None


Policy = Callable[[CallRequest], "Decision | Awaitable[Decision]"]
Approver = Callable[[CallRequest], "Approval | Awaitable[Approval]"]


def default_policy(request: CallRequest) -> Decision:
    """Ask before tools that need approval (``destructive=True`` by default); allow the rest."""
    return "ask" if request.spec.needs_approval else "allow"
