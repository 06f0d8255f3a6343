"""An MCP ``CallToolResult`` -> :class:`toolkit.ToolResult`, losing nothing.

Text blocks are joined for the model, ``structuredContent`` becomes ``structured``, and images,
audio and resources are kept as content blocks for the sinks that can show them.
"""

from __future__ import annotations

import re

import mcp_types

from toolkit.errors import ErrorCode, ToolError
from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = ["to_tool_result"]


def to_tool_result(result: mcp_types.CallToolResult, *, tool: str) -> ToolResult:
    """Convert a result; an ``isError`` result is raised as ``EXECUTION_ERROR``.

    Raises:
        ToolError: The server reported that the tool failed; the message is the server's text.
    """
    blocks = [content_block(b) for b in result.content]
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    text = "\n".join(texts)
    if result.is_error:
        raise remote_error(text, tool=tool)
    keep: list[Content] = [b for b in blocks if not isinstance(b, TextContent)]
    annotated = any(
        isinstance(b, TextContent) and (b.audience or b.priority is not None) for b in blocks
    )
    if len(texts) > 1 or keep or annotated:  # one plain text block is all in ``content``
        keep = blocks
    return ToolResult(content=text, structured=result.structured_content, blocks=keep, tool=tool)


# The frame an mcp-toolkit server puts around a failure (toolkit._messages.frame), and the prefix
# the MCP SDK's servers put before a tool's exception text.
_FRAME = re.compile(
    r"^Error \[(?P<code>[A-Z_]+)\](?: in tool '[^'\n]*')?: (?P<message>.*?)"
    r"(?P<retry>\nThis may be temporary: the same call can be tried again\.)?"
    r"(?:\n\(ref (?P<ref>[^)\s]+)\))?\s*$",
    re.DOTALL,
)
_SDK_PREFIX = re.compile(r"^Error executing tool [^:\s]+: ")


def remote_error(text: str, *, tool: str) -> ToolError:
    """The error a server reported, said once: a failure that a remote mcp-toolkit server (or
    a gateway) already framed keeps its code, its retry hint and its ref (in ``details``) but
    loses its frame, so the local frame is the only one the model reads.
    """
    text = _SDK_PREFIX.sub("", text.strip())
    match = _FRAME.match(text)
    if match is None:
        return ToolError(
            text or f"Tool {tool} failed without a message.", code=ErrorCode.EXECUTION_ERROR
        )
    try:
        code = ErrorCode(match["code"])
    except ValueError:
        code = ErrorCode.EXECUTION_ERROR
    details = {"remote_ref": match["ref"]} if match["ref"] else {}
    return ToolError(
        match["message"].strip() or f"Tool {tool} failed without a message.",
        code=code,
        retryable=bool(match["retry"]),
        details=details,
    )


def content_block(block: mcp_types.ContentBlock) -> Content:
    """One MCP content block as a toolkit content block, annotations kept."""
    audience, priority = _audience(block), _priority(block)
    if isinstance(block, mcp_types.TextContent):
        return TextContent(text=block.text, audience=audience, priority=priority)
    if isinstance(block, mcp_types.ImageContent):
        return ImageContent(
            data=block.data, mime_type=block.mime_type, audience=audience, priority=priority
        )
    if isinstance(block, mcp_types.AudioContent):
        return AudioContent(
            data=block.data, mime_type=block.mime_type, audience=audience, priority=priority
        )
    if isinstance(block, mcp_types.EmbeddedResource):
        res = block.resource
        return ResourceContent(
            uri=str(res.uri),
            mime_type=res.mime_type,
            text=getattr(res, "text", None),
            blob=getattr(res, "blob", None),
            audience=audience,
            priority=priority,
        )
    return ResourceContent(
        uri=str(block.uri),
        mime_type=block.mime_type,
        name=block.name,
        description=block.description,
        audience=audience,
        priority=priority,
    )


def _priority(block: mcp_types.ContentBlock) -> float | None:
    priority = getattr(getattr(block, "annotations", None), "priority", None)
    return None if priority is None else float(priority)


def _audience(block: mcp_types.ContentBlock) -> tuple[str, ...]:
    annotations = getattr(block, "annotations", None)
    return tuple(getattr(annotations, "audience", None) or ())
