"""An MCP ``CallToolResult`` -> :class:`toolkit.ToolResult`, losing nothing.

Text blocks are joined for the model, ``structuredContent`` becomes ``structured``, and images,
audio and resources are kept as content blocks for the sinks that can show them.
"""

from __future__ import annotations

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
    blocks = [_block(b) for b in result.content]
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    text = "\n".join(texts)
    if result.is_error:
        raise ToolError(
            text or f"Tool {tool} failed without a message.", code=ErrorCode.EXECUTION_ERROR
        )
    keep: list[Content] = [b for b in blocks if not isinstance(b, TextContent)]
    if len(texts) > 1 or keep:
        keep = blocks
    return ToolResult(content=text, structured=result.structured_content, blocks=keep, tool=tool)


def _block(block: mcp_types.ContentBlock) -> Content:
    audience = _audience(block)
    if isinstance(block, mcp_types.TextContent):
        return TextContent(text=block.text, audience=audience)
    if isinstance(block, mcp_types.ImageContent):
        return ImageContent(data=block.data, mime_type=block.mime_type, audience=audience)
    if isinstance(block, mcp_types.AudioContent):
        return AudioContent(data=block.data, mime_type=block.mime_type, audience=audience)
    if isinstance(block, mcp_types.EmbeddedResource):
        res = block.resource
        return ResourceContent(
            uri=str(res.uri),
            mime_type=res.mime_type,
            text=getattr(res, "text", None),
            blob=getattr(res, "blob", None),
            audience=audience,
        )
    return ResourceContent(
        uri=str(block.uri), mime_type=block.mime_type, name=block.name, audience=audience
    )


def _audience(block: mcp_types.ContentBlock) -> tuple[str, ...]:
    annotations = getattr(block, "annotations", None)
    return tuple(getattr(annotations, "audience", None) or ())
