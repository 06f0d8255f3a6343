"""Images in tool results, for chat APIs whose tool messages carry text only.

OpenAI's Chat Completions API answers HTTP 400 to a ``tool`` message with an image part (its
content must be a string or text parts). :func:`images_out_of_tool_messages` rewrites such a
conversation: each tool message keeps its text plus a note that an image was returned, and the
images follow in one user message after the turn's tool messages, where the model can see them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

__all__ = ["images_out_of_tool_messages", "needs_text_only_tool_messages"]


def needs_text_only_tool_messages(model: Any) -> bool:
    """Whether ``model`` sends tool messages to Chat Completions (``ChatOpenAI`` and its kin,
    unless set to the Responses API), which refuses anything but text in them."""
    bound = getattr(model, "bound", model)  # a model with tools bound is a RunnableBinding
    openai = any(c.__name__ == "BaseChatOpenAI" for c in type(bound).__mro__)
    return openai and not getattr(bound, "use_responses_api", False)


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")


def _media_name(parts: Sequence[Any]) -> str:
    kinds = sorted({str(p.get("type", "file")) for p in parts if isinstance(p, dict)})
    noun = " and ".join("image" if k in ("image", "image_url") else k for k in kinds)
    return f"{len(parts)} {noun}{'s' if len(parts) > 1 else ''}"


def images_out_of_tool_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` with non-text parts of tool messages moved into a following user message.

    Conversations without such parts come back unchanged (the same message objects).
    """
    out: list[BaseMessage] = []
    held: list[Any] = []

    def flush() -> None:
        if held:
            out.append(HumanMessage(content=list(held)))
            held.clear()

    for message in messages:
        content = message.content
        if not isinstance(message, ToolMessage):
            flush()
            out.append(message)
            continue
        if isinstance(content, str) or all(_is_text(p) for p in content):
            out.append(message)
            continue
        text = [p for p in content if _is_text(p)]
        media = [p for p in content if not _is_text(p)]
        what = _media_name(media)
        note = f"[The tool returned {what}; shown in the next user message.]"
        out.append(message.model_copy(update={"content": [*text, {"type": "text", "text": note}]}))
        name = message.name or "the tool"
        held.append({"type": "text", "text": f"The {what} returned by {name}:"})
        held.extend(media)
    flush()
    return out
