"""The neutral content rules: a tool's return value as content blocks, and what a model reads.

A tool that returns an :class:`~toolkit.result.ImageContent`, an ``AudioContent``, a
``ResourceContent``, a ``TextContent`` or a list mixing them returns *content*: it reaches an
MCP client as content blocks of those types and a multimodal model as blocks it can read, never
as JSON text. Any other value is data: it is serialized by the tool's schema as before.

* :func:`content_result` — return value → :class:`~toolkit.result.ToolResult` (or ``None``).
* :func:`is_content_hint` — a return annotation that declares content (no output schema then).
* :func:`model_content` — what a model reads of a result: its text, or the blocks it may see.

Each wire format has its home in its adapter: the MCP result format in ``adapters.mcp_wire``,
LangChain's content blocks in ``adapters.langchain.messages``.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from typing import Any

from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = [
    "CONTENT_TYPES",
    "USER_ONLY",
    "content_blocks",
    "content_result",
    "for_model",
    "is_content_hint",
    "model_content",
    "resource_text",
]

#: The classes a tool returns to mean "content", not data.
CONTENT_TYPES: tuple[type, ...] = (TextContent, ImageContent, AudioContent, ResourceContent)


def content_blocks(value: Any) -> list[Content] | None:
    """``value`` as content blocks when it is content (one block or a non-empty list), else None."""
    if isinstance(value, TextContent | ImageContent | AudioContent | ResourceContent):
        return [value]
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(v, CONTENT_TYPES) for v in value)
    ):
        return list(value)
    return None


def content_result(value: Any, *, tool: str = "") -> ToolResult | None:
    """The result of a tool that returned content, or ``None`` when ``value`` is data.

    ``content`` is the text blocks joined (what a text-only sink shows); ``blocks`` keeps every
    block in order, so images, audio and resources are sent as themselves.
    """
    blocks = content_blocks(value)
    if blocks is None:
        return None
    text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
    only_text = all(isinstance(b, TextContent) for b in blocks) and len(blocks) == 1
    return ToolResult(content=text, blocks=[] if only_text else blocks, tool=tool)


def is_content_hint(hint: Any) -> bool:
    """Whether a return annotation declares content (``ImageContent``, ``list[Content]``…)."""
    if isinstance(hint, type):
        return issubclass(hint, CONTENT_TYPES)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (list, tuple, Sequence) or origin is typing.Union or origin is types.UnionType:
        return bool(args) and all(a is Ellipsis or is_content_hint(a) for a in args)
    return False


def for_model(block: Content) -> bool:
    """Whether a model may read ``block``: not when its audience is only the user."""
    return not block.audience or "assistant" in block.audience


#: What a model reads when every block of a result is meant for the user only.
USER_ONLY = "(The tool's result is meant for the user only.)"


def model_content(result: ToolResult) -> str | list[Content]:
    """What a model reads of ``result``: the text, or the blocks a model may see.

    A result without blocks is its text. Otherwise the blocks for the assistant (user-only
    ones stay out), with the text first when no block carries it; :data:`USER_ONLY` when
    nothing is left.
    """
    if not result.blocks:
        return result.content
    shown = [b for b in result.blocks if for_model(b)]
    if result.content and not any(isinstance(b, TextContent) for b in result.blocks):
        shown.insert(0, TextContent(text=result.content))
    return shown or USER_ONLY


def resource_text(block: ResourceContent) -> str:
    """A resource as text a model can read: its text, else what and where it is."""
    if block.text is not None:
        return block.text
    kind = "Binary resource" if block.blob is not None else "Resource link"
    name = f" {block.name}" if block.name else ""
    mime = f" ({block.mime_type})" if block.mime_type else ""
    return f"{kind}{name}{mime}: {block.uri}"
