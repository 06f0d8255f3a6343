"""Calls and tools as text: the ACTION block of a call, and the tools prompt."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from adapters.action_xml._names import to_tag
from toolkit import ToolRegistry, ToolSpec

__all__ = ["render_action", "render_tools_prompt", "render_value", "type_label"]

_INDENT = "    "


def _cdata(text: str) -> str:
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _leaf(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if text != text.strip() or any(c in text for c in "<>&\n") or "]]>" in text:
        return _cdata(text)
    return text


def render_value(tag: str, value: Any, depth: int = 0) -> list[str]:
    """``value`` as the element ``tag``, one line per element, indented by ``depth``."""
    pad = _INDENT * depth
    children: list[str] = []
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            children.extend(render_value(to_tag(str(key)), sub, depth + 1))
    elif isinstance(value, list | tuple) and value:
        for sub in value:
            children.extend(render_value("item", sub, depth + 1))
    else:
        leaf = "" if isinstance(value, dict | list | tuple) else _leaf(value)
        return [f"{pad}<{tag}>{leaf}</{tag}>"]
    return [f"{pad}<{tag}>", *children, f"{pad}</{tag}>"]


def render_action(calls: Iterable[tuple[str, dict[str, Any]]]) -> str:
    """The ACTION block for ``(tool name, arguments)`` calls."""
    lines = ["<ACTION>"]
    for name, arguments in calls:
        tag = to_tag(name)
        if arguments:
            lines.append(f"{_INDENT}<{tag}>")
            for key, value in arguments.items():
                lines.extend(render_value(to_tag(key), value, 2))
            lines.append(f"{_INDENT}</{tag}>")
        else:
            lines.append(f"{_INDENT}<{tag}></{tag}>")
    lines.append("</ACTION>")
    return "\n".join(lines)


def _resolve(schema: Any, root: dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        target: Any = root
        for key in schema["$ref"].lstrip("#/").split("/"):
            target = target.get(key) if isinstance(target, dict) else None
        return target if isinstance(target, dict) else {}
    return schema if isinstance(schema, dict) else {}


def type_label(schema: Any, root: dict[str, Any]) -> str:
    """A short type for the prompt: ``string``, ``list of integer``, ``object``, ``any``…"""
    schema = _resolve(schema, root)
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            labels = [type_label(s, root) for s in schema[key]]
            return " or ".join(dict.fromkeys(labels))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array":
        return f"list of {type_label(schema.get('items', {}), root)}"
    if kind is None and "enum" in schema:
        return "string"
    if kind is None:
        return "object" if "properties" in schema else "any"
    return str(kind)


def _param_lines(name: str, schema: Any, required: bool, root: dict[str, Any]) -> list[str]:
    resolved = _resolve(schema, root)
    need = "required" if required else "optional"
    text = (resolved.get("description") or schema.get("description") or "").strip()
    line = f"        *   `<{to_tag(name)}>` ({type_label(schema, root)}, {need})"
    line += f": {' '.join(text.split())}" if text else ""
    enum = resolved.get("enum")
    if isinstance(enum, list) and enum:
        line += " One of: " + ", ".join(json.dumps(v) for v in enum) + "."
    if "default" in resolved and not required:
        line += f" Default: {json.dumps(resolved['default'])}."
    lines = [line]
    label = type_label(schema, root)
    if label.startswith("list"):
        lines.append(
            f"            *   Write each element as <item>: `<{to_tag(name)}><item>...</item>"
            f"<item>...</item></{to_tag(name)}>`"
        )
    elif label == "object" or label.startswith("object"):
        lines.append(
            f"            *   Write its fields as child elements, or JSON in CDATA: "
            f'`<{to_tag(name)}><![CDATA[{{"key": "value"}}]]></{to_tag(name)}>`'
        )
    return lines


def _tool_lines(spec: ToolSpec) -> list[str]:
    schema = spec.input_schema
    description = " ".join(spec.description.split()) or "(no description)"
    lines = [f"*   `<{to_tag(spec.name)}>`: {description}"]
    properties = schema.get("properties") or {}
    if not properties:
        lines.append("    *   Parameters: none")
        return lines
    required = set(schema.get("required") or [])
    lines.append("    *   Parameters:")
    for name, sub in properties.items():
        lines.extend(_param_lines(name, sub, name in required, schema))
    return lines


_RULES = """\
When you decide to use a tool, first explain your reasoning in a sentence or two, then write
one <ACTION> block: the tool name as the main tag and each parameter as a child tag. To call
several tools at once, put several tool elements in the same block. Then stop and wait: the
result comes back as an "Observation:" line. If no tool is needed, just give your answer in
text, with no <ACTION> block.

How to write values:
*   Text and numbers as they are: `<city>Lisbon</city>`, `<count>3</count>`, `<urgent>true</urgent>`.
*   A list as repeated <item> elements: `<names><item>Alice</item><item>Bob</item></names>`.
*   An object as child elements: `<address><street>1 Main St</street><city>Porto</city></address>`.
*   Text holding <, > or &, several lines or exact spacing inside CDATA:
    `<code><![CDATA[if a < b && c: print("ok")]]></code>`.
*   Leave out optional parameters you do not need."""


def _as_specs(tools: ToolRegistry | Iterable[ToolSpec]) -> list[ToolSpec]:
    return tools.specs() if isinstance(tools, ToolRegistry) else list(tools)


def render_tools_prompt(
    tools: ToolRegistry | Sequence[ToolSpec] | Iterable[ToolSpec],
    *,
    examples: bool = True,
    correction_example: bool = False,
) -> str:
    """The system-prompt text that teaches a text-only model the tools and the protocol.

    Args:
        tools: A registry or its specs.
        examples: Add few-shot examples generated from these tools and their schemas (a
            simple value, a list, a nested object, a CDATA value, an answer with no action).
        correction_example: Add the wrong-then-fixed example too (a call missing a required
            parameter, its error observation, the fixed call). Off by default: small models
            copy its wrong call (see :mod:`adapters.action_xml._examples`).

    Returns:
        The prompt text.
    """
    from adapters.action_xml._examples import tool_examples

    specs = _as_specs(tools)
    lines = ["You have access to the following tools:", ""]
    for spec in specs:
        lines.extend(_tool_lines(spec))
    lines.extend(["", _RULES])
    if examples:
        shots = tool_examples(specs, correction=correction_example)
        if shots:
            lines.extend(["", "Examples of answers:"])
            for number, shot in enumerate(shots, 1):
                lines.extend(["", f"Example {number} ({shot.title}):", shot.transcript()])
    return "\n".join(lines)
