"""Calling a chat model so that OpenAI-compatible local servers work as well as OpenAI.

Two things real local servers (llama.cpp's ``llama-cpp-python[server]`` with a function-calling
chat format) do differently from OpenAI, both seen with a real small model:

* **Tools are shown only when ``tool_choice`` is sent.** LangChain's ``bind_tools`` sends none
  by default, so the model never sees the tools and every run "completes" without calling one.
  :func:`bind_tools` binds with an explicit ``tool_choice="auto"``: OpenAI's own default, so
  harmless there, for every model whose ``bind_tools`` takes the argument.
* **An assistant turn with tool calls and no text is refused.** LangChain's OpenAI client sends
  its content as ``null`` (it cannot send ``""``: an empty content becomes ``null``), and the
  server, whose request types want a string there, answers HTTP 500. :class:`ToolTurnRepair` retries such a
  request once with those turns' content set to a single space, logs why, and sends them so
  for the rest of the agent's life; OpenAI, which accepts ``null``, never sees the change.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig

__all__ = ["ToolTurnRepair", "bind_tools"]

log = logging.getLogger("adapters.langgraph")

#: Statuses a server answers a conversation it cannot read with (llama.cpp: 500).
_REFUSED = frozenset({400, 422, 500})
#: The content a tool-call turn without text is sent with after a server refused ``null``.
FILLER = " "


def bind_tools(model: BaseChatModel, tools: Sequence[Any]) -> Runnable[LanguageModelInput, Any]:
    """``model`` with ``tools`` bound, with ``tool_choice="auto"`` where the model takes it."""
    try:
        takes_choice = "tool_choice" in inspect.signature(model.bind_tools).parameters
    except (TypeError, ValueError):  # a callable without a readable signature
        takes_choice = False
    if takes_choice:
        try:
            return model.bind_tools(tools, tool_choice="auto")
        except (TypeError, ValueError, NotImplementedError):
            pass  # a model that declares the argument but not this value: bind as usual
    return model.bind_tools(tools)


class ToolTurnRepair:
    """Invokes a model; a request refused while it holds tool-call turns without text is
    retried once with those turns filled, and later requests are filled from the start."""

    def __init__(self) -> None:
        self.filling = False

    def invoke(
        self,
        runnable: Runnable[LanguageModelInput, Any],
        messages: list[BaseMessage],
        config: RunnableConfig,
    ) -> Any:
        """``runnable.invoke(messages, config)``, repaired as the class says."""
        sent = _filled(messages) if self.filling else None
        try:
            return runnable.invoke(sent or messages, config)
        except Exception as exc:
            again = self._retry(exc, messages)
            if again is None:
                raise
        return runnable.invoke(again, config)

    async def ainvoke(
        self,
        runnable: Runnable[LanguageModelInput, Any],
        messages: list[BaseMessage],
        config: RunnableConfig,
    ) -> Any:
        """``await runnable.ainvoke(messages, config)``, repaired as the class says."""
        sent = _filled(messages) if self.filling else None
        try:
            return await runnable.ainvoke(sent or messages, config)
        except Exception as exc:
            again = self._retry(exc, messages)
            if again is None:
                raise
        return await runnable.ainvoke(again, config)

    def _retry(self, exc: Exception, messages: list[BaseMessage]) -> list[BaseMessage] | None:
        if self.filling or getattr(exc, "status_code", None) not in _REFUSED:
            return None
        filled = _filled(messages)
        if filled is None:
            return None
        self.filling = True
        log.warning(
            "The model server refused the conversation (HTTP %s: %s). It holds assistant turns "
            "with tool calls and no text, which LangChain's OpenAI client sends as content "
            "null; some OpenAI-compatible servers (llama.cpp) cannot read that. Retrying once "
            "with their content set to %r, and sending them so from now on.",
            getattr(exc, "status_code", "?"),
            _short(exc),
            FILLER,
        )
        return filled


def _filled(messages: list[BaseMessage]) -> list[BaseMessage] | None:
    """``messages`` with every text-less tool-call turn given :data:`FILLER`; ``None`` if
    there is none."""
    out: list[BaseMessage] = []
    changed = False
    for message in messages:
        if (
            isinstance(message, AIMessage)
            and (message.tool_calls or message.invalid_tool_calls)
            and not message.content
        ):
            message = message.model_copy(update={"content": FILLER})
            changed = True
        out.append(message)
    return out if changed else None


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:197] + "..."
