"""A :class:`ToolResult` as LangChain sees it: a ``ToolMessage`` with content blocks."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.messages.content import (
    create_audio_block,
    create_image_block,
    create_text_block,
)

from toolkit.calls.wire import model_content, resource_text
from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = ["result_artifact", "result_content", "to_block", "to_tool_message"]


def to_block(block: Content) -> dict[str, Any]:
    """One toolkit content block as a LangChain standard content block."""
    if isinstance(block, TextContent):
        return dict(create_text_block(block.text))
    if isinstance(block, ImageContent):
        return dict(create_image_block(base64=block.data, mime_type=block.mime_type))
    if isinstance(block, AudioContent):
        return dict(create_audio_block(base64=block.data, mime_type=block.mime_type))
    if isinstance(block, ResourceContent):
        # Providers refuse file and plain-text blocks in tool messages: resources go as text.
        return dict(create_text_block(resource_text(block)))
    raise TypeError(f"Unknown content block {block!r}")


def result_content(result: ToolResult) -> str | list[str | dict[str, Any]]:
    """What the model reads (the core's :func:`~toolkit.calls.wire.model_content`), as LangChain blocks.

    A failure's text is the processor's message, which says it is an error: providers such
    as OpenAI never see ``ToolMessage.status``.
    """
    shown = model_content(result)
    return shown if isinstance(shown, str) else [to_block(b) for b in shown]


def result_artifact(result: ToolResult) -> Any:
    """What the application keeps and the model never sees.

    The structured value of a success (``None`` for plain text), or, for a failure,
    ``{"error": {"code", "message", "retryable", "details"}}``.
    """
    if result.is_error and result.error is not None:
        return {"error": result.error.to_dict()}
    return result.structured


def to_tool_message(result: ToolResult, tool_call_id: str, name: str | None = None) -> ToolMessage:
    """The ``ToolMessage`` answering tool call ``tool_call_id`` with ``result``."""
    return ToolMessage(
        content=result_content(result),
        tool_call_id=tool_call_id,
        name=name or result.tool,
        artifact=result_artifact(result),
        status="error" if result.is_error else "success",
    )
