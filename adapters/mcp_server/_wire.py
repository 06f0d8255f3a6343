"""Wire shapes: a toolkit spec as a ``tools/list`` entry, and copies of JSON data.

Handlers return plain dicts: the SDK validates them against the negotiated protocol version
anyway, so building pydantic models first would only double the work.
"""

from __future__ import annotations

from typing import Any

from toolkit.calls.examples import EXAMPLES_META_KEY
from toolkit.calls.spec import ToolSpec

__all__ = ["json_copy", "tool_entry"]


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
    if spec.options.task_support != "forbidden":  # 2025-11-25 clients may run it as a task
        entry["execution"] = {"taskSupport": spec.options.task_support}
    annotations = spec.annotations.to_mcp()
    if annotations:
        entry["annotations"] = annotations
    if spec.examples:  # MCP has no field for them: clients that know the key show them
        entry["_meta"] = {EXAMPLES_META_KEY: [dict(e) for e in spec.examples]}
    return entry


def json_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars), without ``copy.deepcopy``'s memo."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value
