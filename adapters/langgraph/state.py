"""The state of a toolkit agent graph and its reducers."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph.message import add_messages

__all__ = ["AgentState", "ToolCallEntry", "add_usage", "usage_of"]

_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens")


class ToolCallEntry(TypedDict):
    """One tool call in the agent's log.

    Attributes:
        iteration: The model turn (1-based) that asked for the call.
        call_id: The model's tool-call id.
        tool: The tool name the model asked for.
        arguments: The arguments as sent (secret values redacted by the registry).
        result: The text the model read back.
        is_error: Whether the call failed.
        code: The error code of a failure, else ``None``.
        decision: The policy's decision (``allow``, ``deny``, ``approved``, ``rejected``,
            ``edited``).
        duration_ms: Wall time of the call, retries included.
    """

    iteration: int
    call_id: str
    tool: str
    arguments: Any
    result: str
    is_error: bool
    code: str | None
    decision: str
    duration_ms: float


def add_usage(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Sum two token-usage dicts key by key."""
    total = dict(left or {})
    for key, value in (right or {}).items():
        total[key] = total.get(key, 0) + int(value or 0)
    return total


def usage_of(message: AIMessage) -> dict[str, int]:
    """The token usage a model reported on ``message`` (zeros when it reported none)."""
    meta: Mapping[str, Any] = message.usage_metadata or {}
    return {key: int(meta.get(key, 0) or 0) for key in _USAGE_KEYS}


class AgentState(TypedDict, total=False):
    """State of :func:`~adapters.langgraph.build_agent` graphs.

    Attributes:
        messages: The conversation (the whole thread).
        tool_calls: The tool calls of the current user turn, in order of completion.
        iterations: Model calls of the current user turn (a call that asked for tools,
            then the one that answered: 2).
        usage: Token usage summed over the current user turn's model calls
            (``input_tokens``, ``output_tokens``, ``total_tokens``).
        run: The id of the current user turn's run, for an agent with a budget.
        empty_answer: Set when the model ended the current user turn with no text (empty,
            blank, or a bare ``functions.NAME:``): ``"retried"`` when asking it once more
            without tools gave the answer, ``"fallback"`` when the run ended with the
            agent's fallback answer (what ran and what it returned, quoted, or that nothing
            ran). Absent or ``None`` otherwise. A warning on the ``adapters.langgraph``
            logger names the likely cause; see ``docs/local-models.md``.

    The three per-turn keys start again from zero when a new user message arrives on a
    checkpointed thread (the model node writes them with ``Overwrite``).
    """

    messages: Annotated[list[AnyMessage], add_messages]
    tool_calls: Annotated[list[ToolCallEntry], operator.add]
    iterations: int
    usage: Annotated[dict[str, int], add_usage]
    run: str
    empty_answer: str | None
