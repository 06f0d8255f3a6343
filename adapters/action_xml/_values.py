"""Element trees to JSON values, guided by the tool's JSON Schema when there is one.

Without a schema a leaf is its text, children all tagged ``item`` are a list, other children
are an object whose repeated tags are lists. Text is trimmed, except a CDATA section's and
except a whitespace-only value of a string parameter (``<separator> </separator>`` is
``" "``): there the spaces are the value. With a schema, text is coerced to the type the
schema asks for (``"25"`` → 25, ``"true"`` → True, one ``<item>`` → a one-element list, JSON in
a CDATA for an object or array → the value). A value that cannot be coerced stays as written,
so that validation names the problem in the registry's own words.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jsonschema import Draft202012Validator

from adapters.action_xml._names import from_tag, tag_maps
from adapters.action_xml._xml import MalformedAction, Node

__all__ = ["arguments_of", "value_of"]

Schema = dict[str, Any]

_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_TRUE = frozenset({"true", "yes", "1"})
_FALSE = frozenset({"false", "no", "0"})


def _resolve(schema: Any, root: Schema) -> Schema:
    """Follow a local ``$ref`` (``#/$defs/...``) to the schema it names."""
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and seen < 32:
        ref = schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        target: Any = root
        for key in ref[2:].split("/"):
            target = target.get(key) if isinstance(target, dict) else None
        schema = target if isinstance(target, dict) else {}
        seen += 1
    return schema if isinstance(schema, dict) else {}


def _branches(schema: Schema) -> list[Any] | None:
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return list(schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return [{**schema, "type": k} for k in kind]
    return None


def _is_item_list(node: Node) -> bool:
    return bool(node.children) and all(c.tag.lower() == "item" for c in node.children)


def _loose(node: Node) -> None:
    if node.has_loose_text():
        raise MalformedAction(
            f"<{node.tag}> mixes text with child elements; put the text in its own element "
            "or the whole value in <![CDATA[...]]>"
        )


def value_of(node: Node, schema: Any, root: Schema) -> Any:
    """The JSON value ``node`` stands for under ``schema`` (``None``/``{}``: no schema)."""
    schema = _resolve(schema, root)
    branches = _branches(schema) if schema else None
    if branches is not None:
        return _first_valid(node, branches, root)
    kind = schema.get("type") if schema else None
    if node.children:
        _loose(node)
        if kind == "array" or (kind is None and "items" in schema):
            return _array_from_children(node, schema, root)
        if kind == "object" or (kind is None and "properties" in schema):
            return _object_from_children(node.children, schema, root)
        if kind is None and _is_item_list(node):
            return [value_of(c, {}, root) for c in node.children]
        return _object_from_children(node.children, schema if kind is None else {}, root)
    text = node.text()
    if kind == "string" and not text:
        return node.raw_text()
    return _scalar(text, schema, root)


def _first_valid(node: Node, branches: list[Any], root: Schema) -> Any:
    """The first branch whose coerced value validates; else the value without a schema."""
    text = None if node.children else node.text()
    kinds = {_resolve(b, root).get("type") for b in branches}
    if text == "" and "null" in kinds and not kinds & {"string", "array", "object"}:
        # An empty element is null, unless it can be an empty string, list or object.
        return None
    for branch in branches:
        try:
            value = value_of(node, branch, root)
        except MalformedAction:
            continue
        if _valid(value, {**_resolve(branch, root), "$defs": root.get("$defs", {})}):
            return value
    return value_of(node, {}, root)


def _valid(value: Any, schema: Schema) -> bool:
    try:
        return bool(Draft202012Validator(schema).is_valid(value))
    except Exception:  # an odd schema from afar: treat as "does not fit"
        return False


def _array_from_children(node: Node, schema: Schema, root: Schema) -> list[Any]:
    items = schema.get("items", {})
    children = node.children
    if _is_item_list(node) or (len(children) > 1 and len({c.tag for c in children}) == 1):
        return [value_of(c, items, root) for c in children]
    resolved = _resolve(items, root)
    if resolved.get("type") == "object" or "properties" in resolved or len(children) > 1:
        # <files><path>a</path><mode>r</mode></files>: one object written without <item>.
        return [value_of(node, items, root)]
    return [value_of(children[0], items, root)]


def _object_from_children(children: list[Node], schema: Schema, root: Schema) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    exact, folded = tag_maps(list(properties))
    grouped: dict[str, list[Node]] = {}
    for child in children:
        grouped.setdefault(from_tag(child.tag, exact, folded), []).append(child)
    out: dict[str, Any] = {}
    for key, nodes in grouped.items():
        sub = properties.get(key, extra if isinstance(extra, dict) else {})
        if len(nodes) == 1:
            out[key] = value_of(nodes[0], sub, root)
            continue
        resolved = _resolve(sub, root)
        item_schema = resolved.get("items", {}) if resolved.get("type") == "array" else {}
        out[key] = [value_of(n, item_schema, root) for n in nodes]
    return out


def _scalar(text: str, schema: Schema, root: Schema) -> Any:
    kind = schema.get("type") if schema else None
    if kind == "integer" and _INT.match(text):
        return int(text)
    if kind == "number":
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text):
            return float(text)
    if kind == "boolean":
        low = text.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
    if kind == "null" and text.lower() in ("", "null", "none"):
        return None
    if kind == "array":
        if text == "":
            return []
        if text.startswith("["):
            decoded = _json(text)
            if isinstance(decoded, list):
                return decoded
        return [_scalar(text, _resolve(schema.get("items", {}), root), root)]
    if kind == "object":
        if text == "":
            return {}
        if text.startswith("{"):
            decoded = _json(text)
            if isinstance(decoded, dict):
                return decoded
    return text


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def arguments_of(call: Node, schema: Schema | None) -> dict[str, Any]:
    """The arguments of one call element (``{}`` for an empty element)."""
    if not call.children:
        if call.text():
            raise MalformedAction(
                f"<{call.tag}> holds text but no parameter elements; write each parameter as "
                f"its own child element, e.g. <{call.tag}><name>value</name></{call.tag}>"
            )
        return {}
    root = schema or {}
    return _object_from_children(call.children, root, root)
