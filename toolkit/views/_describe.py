"""Short readings of JSON Schemas for people and models (no imports from the rest of the core)."""

from __future__ import annotations

from typing import Any

__all__ = ["describe_type"]


def describe_type(schema: Any) -> str:
    """A short reading of a JSON Schema: ``integer >= 1``, ``one of 'a', 'b'``, ``array of string``."""
    if not isinstance(schema, dict):
        return "any value"
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    if "const" in schema:
        return f"exactly {schema['const']!r}"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            parts = [describe_type(s) for s in schema[key]]
            return " or ".join(dict.fromkeys(parts))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {describe_type(schema.get('items'))}"
    text = str(kind) if kind else "any value"
    if fmt := schema.get("format"):
        text += f" ({fmt})"
    bounds = [
        f"{op} {schema[key]}"
        for key, op in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
            ("minLength", "length >="),
            ("maxLength", "length <="),
        )
        if key in schema
    ]
    return text + (" " + ", ".join(bounds) if bounds else "")
