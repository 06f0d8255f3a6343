"""The MCP result format, both directions: one home for blocks and the result envelope.

* Serving: :func:`call_result` turns a :class:`~toolkit.ToolResult` into a ``tools/call``
  result (:func:`mcp_content` its ``content`` blocks, :func:`mcp_block` one block, the error code
  under :data:`ERROR_META_KEY`).
* Calling: :func:`to_tool_result` turns a server's ``CallToolResult`` back into a
  ``ToolResult``, losing nothing; :func:`remote_error` reads a failure a remote mcp-toolkit
  server already framed, so it is said once.

Handlers return plain dicts: the SDK validates them against the negotiated protocol version
anyway, so building pydantic models first would only double the work.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types

from toolkit.calls.spec import ToolSpec
from toolkit.errors import ErrorCode, ToolError
from toolkit.result import (
    AudioContent,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)

__all__ = [
    "ERROR_META_KEY",
    "call_result",
    "content_block",
    "mcp_block",
    "mcp_content",
    "remote_error",
    "to_tool_result",
]

#: ``_meta`` key of a failed result: the toolkit error code and whether retrying can help.
ERROR_META_KEY = "mcp-toolkit/error"


# -- ToolResult -> MCP ------------------------------------------------------------------------


def call_result(result: ToolResult, spec: ToolSpec | None) -> dict[str, Any]:
    """The ``tools/call`` result of ``result``: text first, then other blocks, then structure."""
    out: dict[str, Any] = {
        "content": mcp_content(result),
        "isError": result.is_error,
        "resultType": "complete",
    }
    if result.is_error:
        if result.error is not None:
            out["_meta"] = {
                ERROR_META_KEY: {
                    "code": result.error.code.value,
                    "retryable": result.error.retryable,
                }
            }
        return out
    if result.structured is not None:
        out["structuredContent"] = _structured(result.structured, spec)
    return out


def _structured(value: Any, spec: ToolSpec | None) -> Any:
    # The output schema describes an object; a non-object result travels as {"result": ...}.
    if spec is not None and spec.wraps_result and not _is_wrapped(value):
        return {"result": value}
    if not isinstance(value, dict):
        return {"result": value}
    return value


def _is_wrapped(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"result"}


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


def _text(result: ToolResult) -> dict[str, Any]:
    return {"type": "text", "text": result.content or _structured_text(result)}


def _structured_text(result: ToolResult) -> str:
    return "" if result.structured is None else json.dumps(result.structured, default=str)


# -- MCP -> ToolResult ------------------------------------------------------------------------


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


# The frame an mcp-toolkit server puts around a failure (toolkit.calls._messages.frame), and the prefix
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
