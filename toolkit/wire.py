"""The one rule from a tool's return value to content blocks, and from blocks to each wire.

A tool that returns an :class:`~toolkit.result.ImageContent`, an ``AudioContent``, a
``ResourceContent``, a ``TextContent`` or a list mixing them returns *content*: it reaches an
MCP client as content blocks of those types and a multimodal model as blocks it can read, never
as JSON text. Any other value is data: it is serialized by the tool's schema as before.

* :func:`content_result` — return value → :class:`~toolkit.result.ToolResult` (or ``None``).
* :func:`is_content_hint` — a return annotation that declares content (no output schema then).
* :func:`mcp_content` — result → MCP ``content`` list (what ``tools/call`` sends).
* :func:`model_blocks` — result → LangChain standard content blocks for a chat model.
"""

from __future__ import annotations

import json
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
    "content_blocks",
    "content_result",
    "for_model",
    "is_content_hint",
    "mcp_block",
    "mcp_content",
    "model_blocks",
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


def mcp_content(result: ToolResult) -> list[dict[str, Any]]:
    """The MCP ``content`` list of ``result``: its blocks, or its text as one text block."""
    has_text_blocks = any(isinstance(block, TextContent) for block in result.blocks)
    blocks: list[dict[str, Any]] = [] if has_text_blocks else [_text(result)]
    blocks.extend(mcp_block(block) for block in result.blocks)
    if len(blocks) > 1 and blocks[0] == {"type": "text", "text": ""}:
        del blocks[0]  # content with no text needs no empty text block
    return blocks


def mcp_block(block: Content) -> dict[str, Any]:
    """One block as an MCP content dict, its audience and priority kept as annotations."""
    out = _mcp_block(block)
    annotations: dict[str, Any] = {}
    if block.audience:
        annotations["audience"] = list(block.audience)
    if block.priority is not None:
        annotations["priority"] = block.priority
    if annotations:
        out["annotations"] = annotations
    return out


def for_model(block: Content) -> bool:
    """Whether a model may read ``block``: not when its audience is only the user."""
    return not block.audience or "assistant" in block.audience


def _mcp_block(block: Content) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return {"type": block.type, "data": block.data, "mimeType": block.mime_type}
    if block.text is None and block.blob is None:
        link: dict[str, Any] = {
            "type": "resource_link",
            "uri": block.uri,
            "name": block.name or block.uri,
        }
        if block.mime_type:
            link["mimeType"] = block.mime_type
        if block.description:
            link["description"] = block.description
        return link
    resource: dict[str, Any] = {"uri": block.uri}
    if block.mime_type:
        resource["mimeType"] = block.mime_type
    if block.text is not None:
        resource["text"] = block.text
    else:
        resource["blob"] = block.blob
    return {"type": "resource", "resource": resource}


def model_blocks(result: ToolResult) -> list[dict[str, Any]]:
    """``result`` as LangChain standard content blocks a chat model provider accepts.

    Images and audio become ``image``/``audio`` blocks with base64 data; a text resource
    becomes text; a binary resource and a link become text naming them (providers refuse
    file blocks from tool messages). Never empty: a result with no content says so.
    """
    if not result.blocks:
        return [{"type": "text", "text": result.content or _structured_text(result)}]
    out: list[dict[str, Any]] = []
    for block in filter(for_model, result.blocks):
        if isinstance(block, TextContent):
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageContent | AudioContent):
            out.append({"type": block.type, "base64": block.data, "mime_type": block.mime_type})
        else:
            out.append({"type": "text", "text": resource_text(block)})
    if not any(isinstance(b, TextContent) for b in result.blocks) and result.content:
        out.insert(0, {"type": "text", "text": result.content})
    return out


def resource_text(block: ResourceContent) -> str:
    """A resource as text a model can read: its text, else what and where it is."""
    if block.text is not None:
        return block.text
    kind = "Binary resource" if block.blob is not None else "Resource link"
    name = f" {block.name}" if block.name else ""
    mime = f" ({block.mime_type})" if block.mime_type else ""
    return f"{kind}{name}{mime}: {block.uri}"


def _text(result: ToolResult) -> dict[str, Any]:
    return {"type": "text", "text": result.content or _structured_text(result)}


def _structured_text(result: ToolResult) -> str:
    return "" if result.structured is None else json.dumps(result.structured, default=str)
