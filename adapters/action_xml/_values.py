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
from contextvars import ContextVar
from typing import Any

from jsonschema import Draft202012Validator

from adapters.action_xml._names import from_tag, tag_maps
from adapters.action_xml._xml import MalformedAction, Node

__all__ = ["arguments_of", "value_of"]

Schema = dict[str, Any]

_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
#: Keywords whose values are subschemas (a dict of them, a list of them, or one).
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
_SUBSCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SUBSCHEMAS = frozenset(
    {"items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames"}
)


class _Reading:
    """One ``arguments_of`` call: what was read already, and whether it fits its schema.

    ``seen`` maps (node, schema) identity to ``(schema, outcome, value or error, fits)``
    (the schema object is kept so that its id stays unique); ``fits`` is ``None`` until
    someone trying a union's branches asks. ``flags`` holds, per value being read, whether
    everything read inside it fits; ``unions`` counts the unions being tried.
    """

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], tuple[Any, bool, Any, bool | None]] = {}
        self.flags: list[bool] = []
        self.unions = 0
        self.checks: dict[tuple[int, int], tuple[Any, Schema]] = {}

    def check(self, schema: Any, root: Schema, depth: int) -> Schema:
        """``schema`` down to ``depth`` levels, references resolved (cached per object)."""
        key = (id(schema), depth)
        entry = self.checks.get(key)
        if entry is None:
            entry = self.checks[key] = (schema, _limited(schema, root, depth))
        return entry[1]


_READING: ContextVar[_Reading] = ContextVar("action_reading")
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
    """The JSON value ``node`` stands for under ``schema`` (``None``/``{}``: no schema).

    Rule: reading is linear in the elements times the distinct subschemas. A union
    (``anyOf``, ``oneOf``, a list of types) takes the first branch under which the value
    fits; each (element, schema) pair is read once per call and remembered together with
    whether it fits, which is decided bottom-up (the element's own keywords, then its
    children's; a leaf's JSON value two levels deep), so a recursive schema cannot make a
    deeply nested block cost exponential time. The registry validates the whole value later.
    """
    reading = _READING.get(None)
    if reading is None:
        token = _READING.set(_Reading())
        try:
            return value_of(node, schema, root)
        finally:
            _READING.reset(token)
    key = (id(node), id(schema))
    entry = reading.seen.get(key)
    if entry is None or (entry[3] is None and reading.unions and entry[1]):
        reading.flags.append(True)
        try:
            value = _value_of(node, schema, root)
        except MalformedAction as exc:
            reading.flags.pop()
            reading.seen[key] = (schema, False, exc, False)
            raise
        fits: bool | None = reading.flags.pop()
        if not reading.unions:
            fits = None
        elif fits and schema:
            # An element's children were checked as they were read: its own keywords are
            # left. A leaf's value may still be a list or object (one <item>, JSON in a
            # CDATA): checked two levels deep.
            fits = _valid(value, reading.check(schema, root, 0 if node.children else 2))
        entry = reading.seen[key] = (schema, True, value, fits)
    _, ok, result, fits = entry
    if not ok:
        raise result
    if fits is False and reading.flags:
        reading.flags[-1] = False
    return result


def _value_of(node: Node, schema: Any, root: Schema) -> Any:
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
    """The first branch under which the value fits; else the value without a schema."""
    text = None if node.children else node.text()
    kinds = {_resolve(b, root).get("type") for b in branches}
    if text == "" and "null" in kinds and not kinds & {"string", "array", "object"}:
        # An empty element is null, unless it can be an empty string, list or object.
        return None
    reading = _READING.get()
    reading.unions += 1
    try:
        for branch in branches:
            reading.flags.append(True)
            try:
                value = value_of(node, branch, root)
            except MalformedAction:
                continue
            finally:
                fits = reading.flags.pop()
            if fits:
                return value
    finally:
        reading.unions -= 1
    value = value_of(node, {}, root)
    if reading.flags:
        reading.flags[-1] = False  # no branch fits: neither does the union
    return value


def _limited(schema: Any, root: Schema, depth: int) -> Schema:
    """``schema`` with references resolved down to ``depth`` levels and nothing below."""
    schema = _resolve(schema, root)
    out: Schema = {}
    for key, sub in schema.items():
        if key in _SUBSCHEMA_MAPS and isinstance(sub, dict):
            if depth > 0 and key != "$defs":
                out[key] = {k: _limited(v, root, depth - 1) for k, v in sub.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(sub, list):
            if depth > 0:
                out[key] = [_limited(v, root, depth - 1) for v in sub]
        elif key in _SUBSCHEMAS:
            if depth > 0 and isinstance(sub, dict | bool):
                out[key] = _limited(sub, root, depth - 1) if isinstance(sub, dict) else sub
        elif key != "$ref":
            out[key] = sub
    return out


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
    token = _READING.set(_Reading())
    try:
        return _object_from_children(call.children, root, root)
    finally:
        _READING.reset(token)
