"""Registry tools as Gemini function declarations: the documented OpenAPI schema subset.

Gemini's ``FunctionDeclaration.parameters`` is an OpenAPI 3.0 ``Schema`` subset: ``type`` (one of
string, integer, number, boolean, array, object), ``format``, ``title``, ``description``,
``nullable``, ``enum`` (strings), ``items``, ``minItems``, ``maxItems``, ``properties``,
``required``, ``minProperties``, ``maxProperties``, ``propertyOrdering``, ``minLength``,
``maxLength``, ``pattern``, ``minimum``, ``maximum``, ``default``, ``example`` and ``anyOf``.
There is no ``$ref`` (references are inlined), no ``additionalProperties``, no ``null`` type
(``nullable: true`` instead), no ``const``, ``oneOf`` or ``allOf``, and ``format`` is one of
``enum``/``date-time`` (strings), ``int32``/``int64`` (integers), ``float``/``double`` (numbers).

:func:`to_gemini_schema` rewrites a tool's JSON Schema into that subset, per tool: what cannot be
said there is loosened (and moved into a description where that keeps it useful), never
refused, and every change is named in one :class:`ProviderSchemaWarning` for the tool, so one
tool never sinks the toolset and no tool is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any

from adapters.providers._schema_walk import Changes, inline_refs, warn_changes
from toolkit import Tool

__all__ = ["GEMINI_FORMATS", "GEMINI_KEYS", "to_gemini_schema", "to_gemini_tools"]

#: The keys of Gemini's ``Schema`` object.
GEMINI_KEYS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "propertyOrdering",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "default",
        "example",
        "anyOf",
    }
)
#: The formats Gemini accepts, by type.
GEMINI_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}
_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})
#: Annotations with no meaning for a model's call: dropped without a note.
_SILENT = frozenset(
    {
        "$comment",
        "$id",
        "$anchor",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentMediaType",
        "contentEncoding",
        "examples",
        "$schema",
        "additionalProperties",
    }
)
_LOOSE: dict[str, Any] = {"type": "object"}


def to_gemini_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``schema`` in Gemini's subset, and the changes made (empty when none mattered).

    Args:
        schema: A JSON Schema of ``type: object`` (a tool's input schema).

    Returns:
        The new schema (the input is not modified) and one note per change.
    """
    changes = Changes()
    inlined = inline_refs(schema, changes, recursive=_LOOSE)
    out = _node(inlined, "(root)", changes)
    if out.get("type") != "object":
        changes.add("(root)", "the parameters became an object")
        out = {"type": "object", "properties": {}}
    return out, changes.notes


def _node(node: Any, path: str, changes: Changes) -> dict[str, Any]:
    if not isinstance(node, dict) or node == {} or node is True:
        changes.add(path, "a value of any type became a string (JSON text)")
        return {"type": "string", "description": "Any JSON value, written as JSON text."}
    node = dict(node)
    examples = node.get("examples")
    if "example" not in node and isinstance(examples, list) and examples:
        node["example"] = examples[0]
    node = _combinators(node, path, changes)
    if "anyOf" in node:
        return _any_of(node, path, changes)
    node = _one_type(node, path, changes)
    if "anyOf" in node:
        return _any_of(node, path, changes)
    kind = node.get("type")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _SILENT:
            if key == "additionalProperties" and isinstance(value, dict) and value:
                changes.add(path, "the schema of an open object's values was dropped")
            continue
        if key not in GEMINI_KEYS and key not in ("const", "exclusiveMinimum", "exclusiveMaximum"):
            changes.add(path, f"{key!r} was dropped")
            continue
        out[key] = value
    _values(out, path, changes)
    if kind == "object":
        props = out.get("properties") or {}
        if not props and path != "(root)":
            # Gemini refuses an object without properties; the registry decodes JSON text
            # sent for an object parameter, so an open object travels as a string.
            changes.add(path, "an object without listed properties became a string (JSON text)")
            text = _joined(out.get("description"), "A JSON object, written as JSON text.")
            return {"type": "string", "description": text, **_nullable(out)}
        out["properties"] = {
            name: _node(sub, f"{path}.{name}" if path != "(root)" else name, changes)
            for name, sub in props.items()
        }
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    elif kind == "array":
        items = out.get("items")
        if not isinstance(items, dict) or not items:
            if "items" not in out:
                changes.add(path, "an array without an item type got string items")
                out["items"] = {"type": "string"}
            else:
                out["items"] = _node(items, f"{path}[]", changes)
        else:
            out["items"] = _node(items, f"{path}[]", changes)
    _format(out, path, changes)
    return out


def _combinators(node: dict[str, Any], path: str, changes: Changes) -> dict[str, Any]:
    if "oneOf" in node:
        changes.add(path, "'oneOf' became 'anyOf'")
        node["anyOf"] = [*node.pop("oneOf"), *node.get("anyOf", [])]
    all_of = node.pop("allOf", None)
    if isinstance(all_of, list):
        merged: dict[str, Any] = {}
        for part in all_of:
            if isinstance(part, dict):
                props = {**merged.get("properties", {}), **part.get("properties", {})}
                required = [*merged.get("required", []), *part.get("required", [])]
                merged = {**merged, **part}
                if props:
                    merged["properties"] = props
                if required:
                    merged["required"] = list(dict.fromkeys(required))
        if len(all_of) > 1:
            changes.add(path, "'allOf' was merged into one schema")
        node = {**merged, **node}
    for key in ("not", "if", "then", "else"):
        if key in node:
            node.pop(key)
            changes.add(path, f"{key!r} was dropped")
    return node


def _one_type(node: dict[str, Any], path: str, changes: Changes) -> dict[str, Any]:
    kind = node.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) < len(kind):
            node["nullable"] = True
        if len(kinds) == 1:
            node["type"] = kinds[0]
        else:
            node.pop("type")
            node["anyOf"] = [{"type": k} for k in kinds]
            changes.add(path, f"the types {kinds} became 'anyOf'")
        kind = node.get("type")
    if kind == "null":
        changes.add(path, "a null-only value became a nullable string")
        node["type"], node["nullable"] = "string", True
    elif kind is None and "anyOf" not in node:
        guessed = _guess_type(node)
        if guessed is None:
            changes.add(path, "a value of any type became a string (JSON text)")
            node["type"] = "string"
        else:
            node["type"] = guessed
    return node


def _guess_type(node: dict[str, Any]) -> str | None:
    values = node.get("enum") or ([node["const"]] if "const" in node else [])
    if values and all(isinstance(v, str) for v in values):
        return "string"
    if "properties" in node:
        return "object"
    if "items" in node:
        return "array"
    return None


def _any_of(node: dict[str, Any], path: str, changes: Changes) -> dict[str, Any]:
    given = node.pop("anyOf")
    branches = [b for b in given if not (isinstance(b, dict) and b.get("type") == "null")]
    nullable = len(branches) < len(given) or bool(node.pop("nullable", False))
    shared = {k: v for k, v in node.items() if k in ("description", "title", "default", "example")}
    if len(branches) != len([b for b in branches if isinstance(b, dict)]):
        changes.add(path, "a non-schema 'anyOf' branch was dropped")
    one = len(branches) == 1
    converted = [
        _node(b, path if one else f"{path}|{i}", changes)
        for i, b in enumerate(branches)
        if isinstance(b, dict)
    ]
    for key in node:
        if key not in shared and key not in ("type", "nullable"):
            changes.add(path, f"{key!r} beside 'anyOf' was dropped")
    if len(converted) == 1:
        inner = converted[0]
        out = {**inner, **shared}
        if inner.get("description") and shared.get("description"):
            out["description"] = _joined(shared["description"], inner["description"])
    elif not converted:
        out = {"type": "string", **shared}
    else:
        out = {"anyOf": converted, **shared}
    if nullable:
        out["nullable"] = True
    return out


def _values(out: dict[str, Any], path: str, changes: Changes) -> None:
    if "const" in out:
        out["enum"] = [out.pop("const")]
    if "exclusiveMinimum" in out:
        changes.add(path, "'exclusiveMinimum' became 'minimum'")
        out.setdefault("minimum", out.pop("exclusiveMinimum"))
        out.pop("exclusiveMinimum", None)
    if "exclusiveMaximum" in out:
        changes.add(path, "'exclusiveMaximum' became 'maximum'")
        out.setdefault("maximum", out.pop("exclusiveMaximum"))
        out.pop("exclusiveMaximum", None)
    enum = out.get("enum")
    if isinstance(enum, list) and not all(isinstance(v, str) for v in enum):
        out.pop("enum")
        if out.get("type") == "string":
            out["enum"] = [str(v) for v in enum if v is not None]
        else:
            listed = ", ".join(json.dumps(v) for v in enum)
            out["description"] = _joined(out.get("description"), f"One of: {listed}.")
            changes.add(path, "a non-string 'enum' moved into the description")


def _format(out: dict[str, Any], path: str, changes: Changes) -> None:
    fmt = out.get("format")
    if fmt is None:
        return
    kind = out.get("type")
    if fmt not in GEMINI_FORMATS.get(kind if isinstance(kind, str) else "", frozenset()):
        out.pop("format")
        out["description"] = _joined(out.get("description"), f"Format: {fmt}.")
        changes.add(path, f"the format {fmt!r} moved into the description")


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    return {"nullable": True} if node.get("nullable") else {}


def _joined(first: Any, second: str) -> str:
    return f"{first} {second}" if first else second


def to_gemini_tools(
    tools: Iterable[Tool], *, names: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """Gemini function declarations (``{"name", "description", "parameters"}``) for tools.

    Each tool's schema goes through :func:`to_gemini_schema`; a tool whose schema had to
    change is sent with a :class:`ProviderSchemaWarning` naming the changes. No tool is left
    out. Wrap the list as ``{"function_declarations": [...]}`` in a request's ``tools``.

    Args:
        tools: A ``ToolRegistry`` (or any iterable of tools).
        names: Only these tools (``None``: all), in registry order.
    """
    declarations = []
    for tool in tools:
        spec = tool.spec
        if names is not None and spec.name not in names:
            continue
        schema, notes = to_gemini_schema(spec.input_schema)
        warn_changes("Gemini", spec.name, notes)
        declaration: dict[str, Any] = {"name": spec.name, "description": spec.description}
        if schema.get("properties"):
            declaration["parameters"] = schema  # Gemini refuses an object without properties
        declarations.append(declaration)
    return declarations
