"""Field descriptions of models and dataclasses from their class docstring.

A dataclass has no ``Field(description=...)`` of its own, so its fields are documented where
Python programmers document them: an ``Attributes:`` section (Google; NumPy and reST alike) of
the class docstring. A field's explicit description still wins. The class description becomes
the docstring's summary and body, never the raw ``Attributes:`` block.
"""

from __future__ import annotations

import inspect
from typing import Any

from toolkit.schema._docstring import parse_docstring

__all__ = ["describe_class_fields"]


def describe_class_fields(json_schema: dict[str, Any], cls: type[Any]) -> None:
    """Fill ``json_schema``'s undocumented properties from ``cls``'s docstring, in place."""
    raw = cls.__dict__.get("__doc__")
    if not isinstance(raw, str) or not raw.strip():
        return
    doc = parse_docstring(raw)
    properties = json_schema.get("properties")
    if isinstance(properties, dict):
        for name, prop in properties.items():
            text = doc.params.get(name)
            if text and isinstance(prop, dict) and not prop.get("description"):
                prop["description"] = text
    said = json_schema.get("description")
    if doc.params and said == inspect.cleandoc(raw) and doc.description:
        json_schema["description"] = doc.description
