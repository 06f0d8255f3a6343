"""Translate toolkit specs and results into MCP wire dicts (``tools/list``, ``tools/call``).

Handlers return plain dicts: the SDK validates them against the negotiated protocol version
anyway, so building pydantic models first would only double the work.
"""

from __future__ import annotations

from typing import Any

from toolkit.result import ToolResult
from toolkit.spec import ToolSpec
from toolkit.wire import mcp_content

__all__ = ["ERROR_META_KEY", "call_result", "tool_entry"]

#: ``_meta`` key of a failed result: the toolkit error code and whether retrying can help.
ERROR_META_KEY = "mcp-toolkit/error"


def tool_entry(spec: ToolSpec, *, output_schema: bool = True) -> dict[str, Any]:
    """The ``tools/list`` entry of ``spec``: the schema the model sees, verbatim.

    ``output_schema=False`` leaves the ``outputSchema`` out: a server publishes one only for a
    tool whose results are sure to match it (``ToolRegistry.output_enforced``). A lenient
    tool's value may break it, and MCP clients (the SDK's among them) raise on a result that
    breaks a published ``outputSchema`` or lacks ``structuredContent``; without one they take
    the text, and ``structuredContent`` whenever the value has a structured form.
    """
    entry: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "inputSchema": spec.input_schema,
    }
    if spec.title:
        entry["title"] = spec.title
    if output_schema and spec.output_schema is not None:
        entry["outputSchema"] = spec.output_schema
    annotations = spec.annotations.to_mcp()
    if annotations:
        entry["annotations"] = annotations
    return entry


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
