"""JSON Schema post-processing: inline local ``$ref``s and strip pydantic's auto-titles.

Both walk the schema *as a schema*: they descend only into keywords whose values are schemas
(``properties``, ``items``, ``anyOf``…), never into data (``default``, ``enum``, ``const``,
``examples``), so a property called ``title`` or ``$ref`` and a default value that happens to
be a dict are left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["inline_local_refs", "strip_titles"]

# Keywords whose value is one schema.
_SCHEMA_KEYS = frozenset(
    {
        "items",
        "additionalProperties",
        "additionalItems",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
# Keywords whose value is a list of schemas.
_SCHEMA_LIST_KEYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Keywords whose value maps names to schemas.
_SCHEMA_MAP_KEYS = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)
_LOCAL_PREFIXES = ("#/$defs/", "#/definitions/")

Schema = dict[str, Any]


def _map_subschemas(schema: Schema, fn: Callable[[Schema], Schema]) -> Schema:
    """A copy of ``schema`` with ``fn`` applied to every direct subschema."""
    out: Schema = {}
    for key, value in schema.items():
        if key in _SCHEMA_KEYS and isinstance(value, dict):
            out[key] = fn(value)
        elif (key in _SCHEMA_LIST_KEYS or key in _SCHEMA_KEYS) and isinstance(value, list):
            # _SCHEMA_KEYS with a list: draft-7 tuple "items"
            out[key] = [fn(v) if isinstance(v, dict) else v for v in value]
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            out[key] = {k: fn(v) if isinstance(v, dict) else v for k, v in value.items()}
        else:
            out[key] = value
    return out


def strip_titles(schema: Schema) -> Schema:
    """A copy of ``schema`` without ``title`` keywords (property *names* ``title`` are kept)."""

    def walk(node: Schema) -> Schema:
        if "title" in node:
            node = {k: v for k, v in node.items() if k != "title"}
        return _map_subschemas(node, walk)

    return walk(schema)


def inline_local_refs(schema: Schema) -> Schema:
    """Replace local ``$ref``s (``#/$defs/X``, ``#/definitions/X``) by what they point to.

    Many clients and models cannot follow ``$ref``, and Gemini rejects ``$defs``. Keywords next
    to a ``$ref`` (such as a field's ``description``) are kept and win over the target's own.
    A recursive type cannot be inlined: the ``$ref``s that close a cycle stay, and so do the
    ``$defs`` entries they need; every other definition is dropped. Remote refs are left as they
    are and never fetched.

    Args:
        schema: A JSON Schema (not modified).

    Returns:
        A new schema.
    """
    defs: dict[str, Schema] = {}
    for container in ("definitions", "$defs"):
        found = schema.get(container)
        if isinstance(found, dict):
            defs.update({f"#/{container}/{k}": v for k, v in found.items() if isinstance(v, dict)})
    if not defs:
        return schema
    kept: dict[str, Schema] = {}

    def walk(node: Schema, stack: frozenset[str]) -> Schema:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref in defs:
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if ref in stack:
                kept.setdefault(ref, {})
                return _map_subschemas(siblings, lambda n: walk(n, stack)) | {"$ref": ref}
            target = walk(defs[ref], stack | {ref})
            return target | _map_subschemas(siblings, lambda n: walk(n, stack))
        return _map_subschemas(node, lambda n: walk(n, stack))

    body = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    result = walk(body, frozenset())
    # Definitions still referenced (cycles) are resolved in turn; they may reveal more.
    resolved: dict[str, Schema] = {}
    while pending := [r for r in kept if r not in resolved]:
        for ref in pending:
            resolved[ref] = walk(defs[ref], frozenset({ref}))
    for ref, value in resolved.items():
        container, name = ref[2:].split("/", 1)
        result.setdefault(container, {})[name] = value
    return result
