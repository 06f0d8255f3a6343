"""Translate toolkit specs and results into MCP wire dicts (``tools/list``, ``tools/call``).

Handlers return plain dicts: the SDK validates them against the negotiated protocol version
anyway, so building pydantic models first would only double the work.
"""

from __future__ import annotations

import json
from typing import Any

from toolkit.result import AudioContent, Content, ImageContent, TextContent, ToolResult
from toolkit.spec import ToolSpec

__all__ = ["ERROR_META_KEY", "call_result", "tool_entry"]

#: ``_meta`` key of a failed result: the toolkit error code and whether retrying can help.
ERROR_META_KEY = "mcp-toolkit/error"


def tool_entry(spec: ToolSpec) -> dict[str, Any]:
    """The ``tools/list`` entry of ``spec``: the schema the model sees, verbatim."""
    entry: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    }
    if spec.title:
        entry["title"] = spec.title
    if spec.output_schema is not None:
        entry["outputSchema"] = spec.output_schema
    annotations = spec.annotations.to_mcp()
    if annotations:
        entry["annotations"] = annotations
    return entry


def call_result(result: ToolResult, spec: ToolSpec | None) -> dict[str, Any]:
    """The ``tools/call`` result of ``result``: text first, then other blocks, then structure."""
    out: dict[str, Any] = {
        "content": _content(result),
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


def _content(result: ToolResult) -> list[dict[str, Any]]:
    # A remote tool that sent several text blocks keeps them; otherwise ``content`` is the text.
    has_text_blocks = any(isinstance(block, TextContent) for block in result.blocks)
    blocks: list[dict[str, Any]] = [] if has_text_blocks else [_text(result)]
    blocks.extend(_block(block) for block in result.blocks)
    return blocks


def _text(result: ToolResult) -> dict[str, Any]:
    text = result.content
    if not text and result.structured is not None:
        text = json.dumps(result.structured, default=str)
    return {"type": "text", "text": text}


def _block(block: Content) -> dict[str, Any]:
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
        return link
    resource: dict[str, Any] = {"uri": block.uri}
    if block.mime_type:
        resource["mimeType"] = block.mime_type
    if block.text is not None:
        resource["text"] = block.text
    else:
        resource["blob"] = block.blob
    return {"type": "resource", "resource": resource}


def _structured(value: Any, spec: ToolSpec | None) -> Any:
    # The output schema describes an object; a non-object result travels as {"result": ...}.
    if spec is not None and spec.wraps_result and not _is_wrapped(value):
        return {"result": value}
    if not isinstance(value, dict):
        return {"result": value}
    return value


def _is_wrapped(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"result"}
