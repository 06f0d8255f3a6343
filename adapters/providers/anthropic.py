"""Registry tools in Anthropic's Messages API form: ``input_schema`` and ``input_examples``.

Anthropic takes a tool's JSON Schema almost as it is, with two rules of its own: the
``input_schema`` is an object schema without ``oneOf``, ``anyOf`` or ``allOf`` at its top level,
and every entry of ``input_examples`` (the tool's ``@mcp_tool(examples=[...])``) must be valid
against it. :func:`to_anthropic_tools` keeps both, per tool: a top-level combinator is merged
into one object schema, and an example that does not fit (a remote tool's, say) is left out,
each with a :class:`ProviderSchemaWarning` naming the change. No tool is dropped.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from jsonschema import Draft202012Validator

from adapters.providers._schema_walk import Changes, warn_changes
from toolkit import Tool, ToolSpec

__all__ = ["COMBINATORS", "to_anthropic_tool", "to_anthropic_tools"]

#: Keys Anthropic refuses at the top level of an ``input_schema``.
COMBINATORS = ("oneOf", "anyOf", "allOf")


def _top_level(schema: dict[str, Any], changes: Changes) -> dict[str, Any]:
    out = {k: v for k, v in schema.items() if k != "$schema"}
    properties: dict[str, Any] = dict(out.get("properties") or {})
    for key in COMBINATORS:
        branches = out.pop(key, None)
        if not isinstance(branches, list):
            continue
        for branch in branches:
            if isinstance(branch, dict):
                properties.update(branch.get("properties") or {})
        changes.add("(root)", f"the top-level {key!r} was merged into one object schema")
    if out.get("type") != "object":
        changes.add("(root)", "the input schema became an object")
    out["type"] = "object"
    out["properties"] = properties
    if "required" in out:
        out["required"] = [r for r in out["required"] if r in properties]
    return out


def to_anthropic_tool(spec: ToolSpec) -> tuple[dict[str, Any], list[str]]:
    """The Anthropic tool definition of ``spec`` and the changes made to fit the rules."""
    changes = Changes()
    schema = _top_level(spec.input_schema, changes)
    tool: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "input_schema": schema,
    }
    if spec.examples:
        validator = Draft202012Validator(schema)
        kept = []
        for i, example in enumerate(spec.examples):
            if validator.is_valid(dict(example)):
                kept.append(dict(example))
            else:
                changes.add("input_examples", f"example {i + 1} does not fit and was left out")
        if kept:
            tool["input_examples"] = kept
    return tool, changes.notes


def to_anthropic_tools(
    tools: Iterable[Tool], *, names: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """Anthropic tool definitions (``name``, ``description``, ``input_schema`` and, for
    tools with examples, ``input_examples``), in registry order.

    ``input_examples`` is a beta field of Anthropic's API: send the beta header its
    documentation names with a request that carries them.

    Args:
        tools: A ``ToolRegistry`` (or any iterable of tools).
        names: Only these tools (``None``: all).
    """
    out = []
    for tool in tools:
        spec = tool.spec
        if names is not None and spec.name not in names:
            continue
        definition, notes = to_anthropic_tool(spec)
        warn_changes("Anthropic", spec.name, notes)
        out.append(definition)
    return out
