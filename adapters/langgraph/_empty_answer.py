"""No silent empty answer: what the agent does when the model ends a run with no text.

A model can end a run with nothing to read: an empty or blank message, or only the bare
``functions.NAME:`` that llama-cpp-python's ``chatml-function-calling`` format produces when it
may not call a tool (with ``tool_choice="auto"`` its text answers are ``''`` or
``functions.NAME:``). A user must never get that silence, so the agent:

1. logs one warning naming the likely cause (a server chat format that hides tool results or
   cannot answer in text; the bare ``functions.NAME:`` identifies ``chatml-function-calling``);
2. asks the model once more **without tools**, with a closing request that quotes what the
   tools of this turn returned (a format that hides ``tool`` messages shows it this way);
3. if that answer is empty too, or only repeats the closing request (SmolLM2 did, in the
   HTML-escaped form ``chatml-function-calling`` renders it in), ends the run with
   :func:`fallback_answer`: what ran and what it returned, quoted, or that nothing ran.

The final ``AIMessage`` carries ``response_metadata["empty_answer"]`` and the state's
``empty_answer`` key says the same for the turn: :data:`RETRIED` or :data:`FALLBACK`.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

__all__ = [
    "ANSWER_NOW",
    "FALLBACK",
    "RETRIED",
    "EmptyAnswers",
    "empty_update",
    "fallback_answer",
    "is_empty",
]

log = logging.getLogger("adapters.langgraph")

#: ``empty_answer`` when the model answered once asked again without tools.
RETRIED = "retried"
#: ``empty_answer`` when it did not either and the run ended with :func:`fallback_answer`.
FALLBACK = "fallback"
#: The closing request of the second, tool-less ask (the tools' results follow it).
ANSWER_NOW = "Answer my request now in plain text, without calling a tool."
#: How much of each result the closing request and the fallback quote.
QUOTE_CHARS = 600

_BARE_CALL = re.compile(r"^\s*functions\.[\w.-]*:?\s*$")


def is_empty(message: BaseMessage) -> bool:
    """Whether ``message`` ends a run with nothing to read (no calls, no real text)."""
    if not isinstance(message, AIMessage) or message.tool_calls or message.invalid_tool_calls:
        return False
    text = message.text
    return not text.strip() or bool(_BARE_CALL.match(text))


def _ran(history: Sequence[BaseMessage]) -> list[tuple[str, Any, str]]:
    """``(tool, arguments, result text)`` of each call of the current user turn."""
    start = max((i for i, m in enumerate(history) if isinstance(m, HumanMessage)), default=-1)
    args: dict[str, tuple[str, Any]] = {}
    out = []
    for message in history[start + 1 :]:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                args[call.get("id") or ""] = (call["name"], call["args"])
        elif isinstance(message, ToolMessage):
            name, arguments = args.get(message.tool_call_id, (message.name or "tool", {}))
            out.append((name, arguments, _quote(message.text)))
    return out


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 3] + "..."


def _call_text(name: str, arguments: Any) -> str:
    shown = json.dumps(arguments, ensure_ascii=False, default=str)
    return f"{name}({_quote(shown)})"


def fallback_answer(history: Sequence[BaseMessage]) -> str:
    """The answer a run ends with when the model gave none, even asked again.

    It says so, then quotes each tool call of the current user turn and what it returned, or
    says that no tool ran.
    """
    ran = _ran(history)
    if not ran:
        return (
            "I could not produce an answer to this request, and no tool was run. Please try "
            "again or rephrase the request."
        )
    lines = [f'- {_call_text(n, a)} returned: "{r}"' for n, a, r in ran]
    return "I could not put the answer into words. What ran for this request:\n" + "\n".join(lines)


def _closing_request(history: Sequence[BaseMessage]) -> HumanMessage:
    ran = _ran(history)
    if not ran:
        return HumanMessage(ANSWER_NOW)
    lines = [f'- {_call_text(n, a)} returned: "{r}"' for n, a, r in ran]
    return HumanMessage(f"{ANSWER_NOW} The tools returned:\n" + "\n".join(lines))


def likely_cause(first: AIMessage, history: Sequence[BaseMessage]) -> str:
    """The warning's sentence on why the model could answer nothing."""
    if _BARE_CALL.match(first.text):
        return (
            "it answered only the bare tool-call prefix "
            f"{first.text.strip()!r}, which is what llama-cpp-python's "
            "'chatml-function-calling' chat format produces when tool_choice is 'auto': that "
            "format can answer text only as '' or 'functions.NAME:' and never shows the model "
            "a tool's result"
        )
    if _ran(history):
        return (
            "the server's chat format may not show the model the tool results (the "
            "'tool' messages), as llama-cpp-python's 'chatml-function-calling' format does not"
        )
    return (
        "the server's chat format may not let it answer in text while tools are offered, as "
        "llama-cpp-python's 'chatml-function-calling' format cannot with tool_choice 'auto'"
    )


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", html.unescape(text).lower()))


def _echoes(text: str, asked: HumanMessage) -> bool:
    """Whether ``text`` only repeats the closing request ``asked`` (or part of it)."""
    said = _words(text)
    lines = [_words(line) for line in asked.text.splitlines()]
    return any(len(line) >= 12 and line in said for line in [_words(ANSWER_NOW), *lines]) or (
        "tools returned" in said
    )


def _settled(answer: Any, history: Sequence[BaseMessage], asked: HumanMessage) -> AIMessage:
    usage = answer.usage_metadata if isinstance(answer, AIMessage) else None
    text = answer.text if isinstance(answer, AIMessage) else ""
    # Calls asked for anyway are dropped; a copy of the request is no answer.
    if text.strip() and not _BARE_CALL.match(text) and not _echoes(text, asked):
        metadata = {**answer.response_metadata, "empty_answer": RETRIED}
        return AIMessage(
            content=answer.content, id=answer.id, usage_metadata=usage, response_metadata=metadata
        )
    metadata = {"empty_answer": FALLBACK}
    return AIMessage(
        content=fallback_answer(history), usage_metadata=usage, response_metadata=metadata
    )


class EmptyAnswers:
    """Turns an empty final answer into a second tool-less ask, then a fallback (see above)."""

    def _first(self, answer: Any, messages: list[BaseMessage]) -> list[BaseMessage] | None:
        """The messages of the second ask, or ``None`` when ``answer`` is not empty."""
        if not isinstance(answer, AIMessage) or not is_empty(answer):
            return None
        log.warning(
            "The model ended the run with no answer (%r); asking it once more without tools. "
            "Likely cause: %s. See docs/local-models.md for a setup that works.",
            answer.text[:80],
            likely_cause(answer, messages),
        )
        return [*messages, _closing_request(messages)]

    def settle(
        self,
        answer: Any,
        messages: list[BaseMessage],
        ask: Callable[[list[BaseMessage]], Any],
    ) -> Any:
        """``answer``, or, when it is empty, the answer of ``ask`` (the model without tools)
        or the fallback."""
        again = self._first(answer, messages)
        if again is None:
            return answer
        return _settled(ask(again), messages, again[-1])  # type: ignore[arg-type]

    async def asettle(
        self,
        answer: Any,
        messages: list[BaseMessage],
        ask: Callable[[list[BaseMessage]], Awaitable[Any]],
    ) -> Any:
        """:meth:`settle` for ``ainvoke``."""
        again = self._first(answer, messages)
        if again is None:
            return answer
        return _settled(await ask(again), messages, again[-1])  # type: ignore[arg-type]


def empty_update(state: Any, message: AIMessage, new_turn: bool) -> dict[str, Any]:
    """The state's ``empty_answer`` for this model call: set when it happened, cleared when a
    new user turn starts after one where it did."""
    outcome = message.response_metadata.get("empty_answer")
    if outcome:
        return {"empty_answer": outcome}
    if new_turn and state.get("empty_answer"):
        return {"empty_answer": None}
    return {}
