"""``toolkit demo --protocol xml``: the same run, with a model that only writes text.

Offline, the scripted model's turns are written as the ``<ACTION>`` protocol: this text-only
model reads the conversation as a text-only model would (its own ACTION blocks, the
observations), works out the next turn with the demo's script and writes it as text. With a
real endpoint the chat model is used as a plain text model. Either way
:class:`~adapters.action_xml.XmlToolCallingModel` turns the text into tool calls.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any

from langchain_core.language_models import BaseChatModel, SimpleChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from adapters.action_xml import XmlToolCallingModel, parse_action, render_action
from adapters.cli._demo_model import ModelChoice
from adapters.cli._demo_script import next_turn

__all__ = ["xml_model"]

_TOOL_LINE = re.compile(r"^\*   `<([^>]+)>`:", re.MULTILINE)
_OBSERVATION = re.compile(r"^Observation: ", re.MULTILINE)
_SUCCESS = re.compile(r"^Tool (\S+) executed successfully\. Result: (.*)\Z", re.DOTALL)


def _structured(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The text conversation read back as tool calls and tool messages."""
    out: list[BaseMessage] = []
    pending: list[str] = []
    for message in messages:
        if isinstance(message, AIMessage):
            parsed = parse_action(message.text)
            pending = [f"call_{uuid.uuid4().hex[:8]}" for _ in parsed.calls]
            calls = [
                {"name": c.name, "args": c.arguments, "id": i}
                for c, i in zip(parsed.calls, pending, strict=True)
            ]
            out.append(AIMessage(content=parsed.response_text, tool_calls=calls))
        elif isinstance(message, HumanMessage) and message.text.startswith("Observation: "):
            observations = [o.strip() for o in _OBSERVATION.split(message.text) if o.strip()]
            for call_id, text in zip(pending, observations, strict=False):
                success = _SUCCESS.match(text)
                if success:
                    out.append(ToolMessage(success.group(2), tool_call_id=call_id))
                else:
                    out.append(ToolMessage(text, tool_call_id=call_id, status="error"))
            pending = []
        elif not isinstance(message, SystemMessage):
            out.append(message)
    return out


class _ScriptedTextModel(SimpleChatModel):
    """The demo script, answering in text with ACTION blocks."""

    pause: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "scripted-text"

    def _call(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> str:
        time.sleep(self.pause)
        system = "\n".join(m.text for m in messages if isinstance(m, SystemMessage))
        bound = _TOOL_LINE.findall(system)
        turn = next_turn(_structured(messages), bound)
        if "tool_calls" not in turn:
            return str(turn["text"])
        calls = [(c["name"], c["args"]) for c in turn["tool_calls"]]
        names = ", ".join(name for name, _ in calls)
        return f"I will call {names}.\n{render_action(calls)}"


def xml_model(choice: ModelChoice, *, pause: float) -> BaseChatModel:
    """The demo's model speaking the ``<ACTION>`` protocol."""
    inner = _ScriptedTextModel(pause=pause) if choice.offline else choice.build(pause=pause)
    return XmlToolCallingModel(inner)
