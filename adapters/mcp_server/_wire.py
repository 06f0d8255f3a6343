"""A toolkit spec as an MCP ``tools/list`` entry (results: :mod:`adapters.mcp_wire`).

Handlers return plain dicts: the SDK validates them against the negotiated protocol version
anyway, so building pydantic models first would only double the work.
"""

from __future__ import annotations

from typing import Any

from toolkit.spec import ToolSpec

__all__ = ["tool_entry"]


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
