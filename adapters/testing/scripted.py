"""A chat model that replays a script, for testing agents offline."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

__all__ = ["ScriptError", "ScriptedCall", "ScriptedChatModel", "TurnFactory"]

#: A turn computed from the conversation: ``(messages, bound_tool_names) -> AIMessage | str``.
TurnFactory = Callable[[list[BaseMessage], list[str]], "AIMessage | str | dict[str, Any]"]


class ScriptError(AssertionError):
    """The script does not fit the conversation (no turn left, or an unbound tool called)."""


@dataclass(frozen=True)
class ScriptedCall:
    """One call of the model, as recorded: the messages it got and the tools bound."""

    messages: list[BaseMessage]
    tools: list[str]


@dataclass
class _Script:
    turns: list[Any]
    position: int = 0
    calls: list[ScriptedCall] = field(default_factory=list)
    ids: Any = field(default_factory=lambda: count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)


class ScriptedChatModel(BaseChatModel):
    """A real ``BaseChatModel`` that answers with a fixed script of assistant turns.

    Each turn is a string (a text answer), an ``AIMessage``, a dict
    ``{"text": ..., "tool_calls": [{"name": ..., "args": {...}}]}`` or a callable
    ``(messages, bound_tool_names) -> turn``. ``bind_tools`` works as with a real model; a
    turn that calls a tool that is not bound raises :class:`ScriptError`, as does a call when
    the script is used up. Copies made by ``bind_tools`` share the script.

    Example::

        model = ScriptedChatModel(turns=[
            {"tool_calls": [{"name": "get_bin", "args": {"code": "B-1"}}]},
            "Bin B-1 holds 3 items.",
        ])

    Args:
        turns: The assistant turns, in order.
        allow_unbound: Let the script call tools that are not bound (to test how an agent
            handles a hallucinated tool name).
        input_tokens: ``usage_metadata.input_tokens`` reported per turn (default: no usage
            is reported, as a script reads no tokens).
        output_tokens: ``usage_metadata.output_tokens`` reported per turn (default: none).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    turns: Sequence[Any] = ()
    allow_unbound: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    _script: _Script = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Create the shared script state."""
        self._script = _Script(turns=list(self.turns))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[ScriptedCall]:
        """Every call made so far (shared between bound copies)."""
        return self._script.calls

    @property
    def remaining(self) -> int:
        """Turns not played yet."""
        return len(self._script.turns) - self._script.position

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (recorded and checked against the script, never executed)."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        bound = [t["function"]["name"] for t in kwargs.get("tools") or []]
        script = self._script
        with script.lock:
            if script.position >= len(script.turns):
                raise ScriptError(
                    f"The script has no turn left: all {len(script.turns)} turns were played "
                    "and the agent called the model again. Add a turn to the script."
                )
            turn = script.turns[script.position]
            script.position += 1
            index = script.position
            script.calls.append(ScriptedCall(list(messages), bound))
        if callable(turn):
            turn = turn(list(messages), bound)
        message = self._to_message(turn, index, bound)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _to_message(self, turn: Any, index: int, bound: list[str]) -> AIMessage:
        if isinstance(turn, str):
            turn = {"text": turn}
        if isinstance(turn, AIMessage):
            message = turn.model_copy()
        elif isinstance(turn, dict):
            calls = [
                {
                    "name": c["name"],
                    "args": c.get("args", {}),
                    "id": c.get("id") or f"call_{next(self._script.ids)}",
                    "type": "tool_call",
                }
                for c in turn.get("tool_calls", [])
            ]
            message = AIMessage(content=turn.get("text") or "", tool_calls=calls)
        else:
            raise ScriptError(f"Turn {index} is {type(turn).__name__}; use str, dict or AIMessage.")
        unbound = [c["name"] for c in message.tool_calls if c["name"] not in bound]
        if unbound and not self.allow_unbound:
            raise ScriptError(
                f"Turn {index} calls {', '.join(map(repr, unbound))}, which "
                f"{'is' if len(unbound) == 1 else 'are'} not bound (bound: "
                f"{', '.join(bound) or 'no tools'}). Fix the script or bind the tool; pass "
                "allow_unbound=True to test an unknown tool name on purpose."
            )
        if message.usage_metadata is None and (self.input_tokens or self.output_tokens):
            tokens_in, tokens_out = self.input_tokens or 0, self.output_tokens or 0
            message.usage_metadata = {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            }
        return message
