"""Human approval through LangGraph's ``interrupt()``.

When the policy answers ``"ask"``, the graph pauses with a payload naming the tool and its
arguments; the application resumes it with ``Command(resume=...)``:

* ``"approve"`` (or ``True``, ``{"action": "approve"}``) runs the call as the model made it;
* ``"reject"`` (or ``False``, ``{"action": "reject", "reason": "..."}``) answers the model with
  a ``DENIED`` message carrying the reason;
* ``{"action": "edit", "arguments": {...}}`` runs the call with the edited arguments (they are
  validated again).

* ``"unasked"`` (or ``{"action": "unasked"}``) says no person could be asked (no one at the
  terminal, say): the model hears that the call was not run because it needs an approval that
  cannot be asked for here, not that someone rejected it.

Without a checkpointer a paused graph can never be resumed, so inside a graph compiled without
one, ``"ask"`` does not pause: the model is told the call was not run because no person can be
asked here (:data:`NOT_ASKED`), and the developer gets the fix (compile with a
checkpointer, or let the policy allow the tool) as a warning on the ``adapters.langchain``
logger. The agent goes on and every tool call still gets its answer.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langgraph.errors import GraphBubbleUp
from langgraph.types import interrupt

from adapters.langchain.graph_config import graph_checkpointer, in_graph
from toolkit import (
    Approval,
    Approver,
    CallOptions,
    CallRequest,
    ErrorCode,
    ToolContext,
    ToolError,
)

__all__ = [
    "NOT_ASKED",
    "approval_payload",
    "call_options",
    "can_pause",
    "in_graph",
    "interrupt_approver",
    "no_checkpointer_reason",
    "to_approval",
]

log = logging.getLogger("adapters.langchain")

_APPROVE = frozenset({"approve", "approved", "accept", "allow", "yes"})
_REJECT = frozenset({"reject", "rejected", "deny", "denied", "no"})
_UNASKED = "unasked"
_HOW = (
    "Resume with 'approve', 'reject' (or {'action': 'reject', 'reason': '...'}), "
    "{'action': 'edit', 'arguments': {...}}, or 'unasked' when no person could be asked."
)


def can_pause(config: RunnableConfig) -> bool:
    """Whether the graph run of ``config`` has a checkpointer, so an interrupt can resume."""
    return graph_checkpointer(config) is not None


def no_checkpointer_reason(tool: str) -> str:
    """The developer's fix when a call needing approval met a graph without a checkpointer."""
    return (
        f"Tool '{tool}' needs a person's approval, and this graph has no checkpointer to pause "
        "on while it waits. Compile or build the agent with a checkpointer (e.g. "
        "checkpointer=InMemorySaver()) to ask for approval, or let the policy allow this tool."
    )


#: What the model reads when a call needing approval was not run because no one was asked.
NOT_ASKED = (
    "Not run: it needs a person's approval and none can be asked here. Tell the user it needs "
    "their approval; do not retry it unless they ask."
)


def _not_asked() -> ToolError:
    # An approver that could ask no one raises: the model reads this, not "rejected".
    return ToolError(NOT_ASKED, code=ErrorCode.DENIED)


def _refuse(request: CallRequest) -> Approval:
    log.warning("%s", no_checkpointer_reason(request.tool))
    raise _not_asked()


def _graph_approver(config: RunnableConfig) -> Approver:
    # Without a checkpointer an interrupt could never be resumed: answer DENIED with the reason.
    return interrupt_approver(config) if can_pause(config) else _refuse


def approval_payload(request: CallRequest) -> dict[str, Any]:
    """What the person deciding sees: tool, arguments, description, and how to answer."""
    return {
        "type": "tool_approval",
        "tool": request.tool,
        "arguments": request.arguments,
        "call_id": request.context.call_id,
        "description": request.spec.description,
        "destructive": bool(request.spec.annotations.destructive),
        "how_to_answer": _HOW,
    }


def _unasked(value: Any) -> bool:
    if isinstance(value, Mapping):
        value = value.get("action", value.get("type"))
    return isinstance(value, str) and value.lower() == _UNASKED


def to_approval(value: Any) -> Approval:
    """Map a resume value to an :class:`Approval`.

    Raises:
        ValueError: When the value is none of the accepted forms (the message lists them).
    """
    if isinstance(value, Approval):
        return value
    if isinstance(value, bool):
        return Approval(approved=value)
    if isinstance(value, str) and value.lower() in _APPROVE | _REJECT:
        return Approval(approved=value.lower() in _APPROVE)
    if isinstance(value, Mapping):
        action = str(value.get("action", value.get("type", ""))).lower()
        if action == "edit" and isinstance(value.get("arguments"), Mapping):
            return Approval(approved=True, arguments=dict(value["arguments"]))
        if action in _APPROVE:
            return Approval(approved=True)
        if action in _REJECT:
            reason = value.get("reason")
            return Approval(approved=False, reason=str(reason) if reason else None)
    raise ValueError(f"Cannot read the approval answer {value!r}. {_HOW}")


def interrupt_approver(config: RunnableConfig) -> Approver:
    """An approver that pauses the graph run of ``config`` with ``interrupt()``.

    The approver may run on another thread or event loop than the graph task (sync tools run
    their calls on a shared loop), so it carries the task's config with it.
    """

    def approve(request: CallRequest) -> Approval:
        token = var_child_runnable_config.set(config)
        try:
            answer = interrupt(approval_payload(request))
        finally:
            var_child_runnable_config.reset(token)
        if _unasked(answer):
            raise _not_asked()
        return to_approval(answer)

    return approve


def call_options(
    config: RunnableConfig | None,
    *,
    context: ToolContext,
    call_id: str | None,
    base: CallOptions | None = None,
) -> CallOptions:
    """The :class:`~toolkit.CallOptions` of a call made from LangChain or a LangGraph graph.

    Interrupts always propagate; inside a graph, ``"ask"`` is answered through ``interrupt()``.

    Args:
        config: The call's ``RunnableConfig``.
        context: The call's context.
        call_id: The model's tool-call id.
        base: Options the application set for every call of these tools.
    """
    start = base or CallOptions()
    in_a_graph = config is not None and in_graph(config)
    return start.replace(
        context=context,
        call_id=call_id or start.call_id,
        propagate=(*start.propagate, GraphBubbleUp),
        approver=_graph_approver(config) if in_a_graph and config else start.approver,
    )
