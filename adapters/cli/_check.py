"""``toolkit inspect --check``: what a model would be left to guess about a tool.

A tool needs a description, and every parameter a description; so does every field of an
object parameter (a pydantic model's or a dataclass's, documented by ``Field(description=...)``
or the class docstring's ``Attributes:``), at any depth, inside lists and optional values too.
"""

from __future__ import annotations

from typing import Any

from toolkit import ToolSpec

__all__ = ["problems"]

_MAX_DEPTH = 6  # deeper than any argument a model is asked to write by hand


def problems(spec: ToolSpec) -> list[str]:
    """One line per undocumented thing of ``spec``, named ``tool.param.field``."""
    found = []
    if not spec.description.strip():
        found.append(f"{spec.name}: no description (add a docstring)")
    for name, schema in spec.parameters.items():
        if not (isinstance(schema, dict) and schema.get("description")):
            found.append(f"{spec.name}.{name}: parameter is not documented (add it under Args:)")
        found.extend(_fields(f"{spec.name}.{name}", schema, 0))
    return found


def _fields(where: str, schema: Any, depth: int) -> list[str]:
    """Undocumented fields of the objects ``schema`` holds (its properties, items, options)."""
    if not isinstance(schema, dict) or depth >= _MAX_DEPTH:
        return []
    found = []
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            found.extend(_fields(where, option, depth + 1))
    if isinstance(schema.get("items"), dict):
        found.extend(_fields(f"{where}[]", schema["items"], depth + 1))
    properties = schema.get("properties")
    for name, prop in (properties if isinstance(properties, dict) else {}).items():
        if isinstance(prop, dict) and "$ref" not in prop and not prop.get("description"):
            found.append(
                f"{where}.{name}: field is not documented (add it under Attributes: in its "
                "class's docstring, or give it Field(description=...))"
            )
        found.extend(_fields(f"{where}.{name}", prop, depth + 1))
    return list(dict.fromkeys(found))
