"""The person behind a LangGraph run, as the client a tool asks: questions become interrupts.

Inside a graph run, a tool's ``ToolContext`` carries an :class:`InterruptChannel`: a tool that
calls ``await context.elicit(message, schema)`` (or a remote MCP tool whose server asks, with
``McpClientPool(elicitation=AskInCaller())``) pauses the run with ``interrupt()``; the
application shows the question (``result["__interrupt__"]``) and resumes with
``Command(resume=...)``, and the tool, run again from its start as LangGraph does, gets the
answer. Resume with ``{"action": "accept", "content": {...}}`` (or just the content),
``"decline"`` or ``"cancel"``. An answer that does not fit the form fails the call with a
message saying what is wrong. Without a checkpointer a run cannot pause: the question is
declined.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config
from langgraph.types import interrupt

from adapters.langchain.graph_config import graph_checkpointer
from toolkit import ErrorCode, ToolError
from toolkit.calls.interaction import Elicitation, LogLevel, SamplingMessage

__all__ = ["InterruptChannel", "elicitation_payload", "to_elicitation"]

_HOW = (
    "Resume with {'action': 'accept', 'content': {...}} (or just the content), 'decline' or "
    "'cancel'."
)
_ACTIONS = frozenset({"accept", "decline", "cancel"})
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO}


def elicitation_payload(tool: str, message: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """What the person answering sees: who asks, the question, the form, how to answer."""
    return {
        "type": "elicitation",
        "tool": tool,
        "message": message,
        "schema": dict(schema),
        "how_to_answer": _HOW,
    }


def to_elicitation(value: Any, schema: Mapping[str, Any]) -> Elicitation:
    """Map a resume value to an :class:`Elicitation`, checking accepted content against ``schema``.

    Raises:
        ToolError: ``INVALID_PARAMS`` when the value is none of the accepted forms or the
            content does not fit the form (the message says what is wrong).
    """
    if isinstance(value, Elicitation):
        answer = value
    elif isinstance(value, str) and value.lower() in _ACTIONS:
        answer = Elicitation(action=value.lower())  # type: ignore[arg-type]
    elif isinstance(value, Mapping) and value.get("action") in _ACTIONS:
        answer = Elicitation(action=value["action"], content=dict(value.get("content") or {}))
    elif isinstance(value, Mapping):
        answer = Elicitation(action="accept", content=dict(value))
    else:
        raise ToolError(
            f"The answer {value!r} is not one this question takes. {_HOW}",
            code=ErrorCode.INVALID_PARAMS,
        )
    if answer.accepted:
        import jsonschema  # here: its import can take seconds, and few runs ask questions

        problems = [
            f"{'.'.join(str(p) for p in e.absolute_path) or 'answer'}: {e.message}"
            for e in jsonschema.Draft202012Validator(dict(schema)).iter_errors(dict(answer.content))
        ]
        if problems:
            raise ToolError(
                "The answer does not fit the question's form: " + "; ".join(problems),
                code=ErrorCode.INVALID_PARAMS,
            )
    return answer


class InterruptChannel:
    """A :class:`toolkit.calls.interaction.ClientChannel` for a tool called inside a graph run.

    The channel may be used on another thread or event loop than the graph task (sync tools
    run their calls on a shared loop), so it carries the run's config with it.

    Args:
        config: The call's ``RunnableConfig``.
        tool: The tool's name, shown with the question.
    """

    def __init__(self, config: RunnableConfig, tool: str = "") -> None:
        self._config = config
        self._tool = tool

    async def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        """Log records go to Python logging (``toolkit.tool`` or the named logger)."""
        logging.getLogger(logger or "toolkit.tool").log(_LEVELS.get(level, logging.WARNING), data)

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Pause the run with the question; the resume value is the answer."""
        if graph_checkpointer(self._config) is None:
            logging.getLogger("toolkit.tool").warning(
                "%s asked %r, but this graph has no checkpointer to pause with; declined",
                self._tool or "a tool",
                message,
            )
            return Elicitation(action="decline")
        token = var_child_runnable_config.set(self._config)
        try:
            value = interrupt(elicitation_payload(self._tool, message, schema))
        finally:
            var_child_runnable_config.reset(token)
        return to_elicitation(value, schema)

    async def sample(
        self,
        messages: Sequence[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None,
        temperature: float | None,
    ) -> str:
        """A graph run lends no model to its tools."""
        raise ToolError(
            "This tool asked the caller's model for a completion, which a LangGraph run does not "
            "lend; give the tool a model of its own.",
            code=ErrorCode.DENIED,
        )
