"""inline_local_refs: local refs inlined with their siblings, cycles kept, remote refs untouched."""

from __future__ import annotations

import copy

from tests.support.schema_helpers import check
from toolkit.schema import inline_local_refs


def test_inlines_with_siblings_winning() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A", "description": "Field text."}},
        "$defs": {"A": {"type": "object", "description": "Model text.", "properties": {}}},
    }
    original = copy.deepcopy(schema)
    assert inline_local_refs(schema) == {
        "type": "object",
        "properties": {"a": {"type": "object", "description": "Field text.", "properties": {}}},
    }
    assert schema == original


def test_nested_defs_and_draft7_definitions() -> None:
    schema = {
        "properties": {"b": {"$ref": "#/definitions/B"}},
        "definitions": {"B": {"items": {"$ref": "#/definitions/C"}}, "C": {"type": "string"}},
    }
    assert inline_local_refs(schema) == {"properties": {"b": {"items": {"type": "string"}}}}


def test_cycles_keep_only_the_needed_defs() -> None:
    schema = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}, "leaf": {"$ref": "#/$defs/Leaf"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            },
            "Leaf": {"type": "integer"},
        },
    }
    result = check(inline_local_refs(schema))
    assert result["properties"]["leaf"] == {"type": "integer"}
    assert result["properties"]["root"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Node"}
    assert list(result["$defs"]) == ["Node"]


def test_remote_refs_and_data_are_left_alone() -> None:
    schema = {
        "properties": {
            "r": {"$ref": "https://example.com/schema.json"},
            "$ref": {"type": "string"},
            "d": {"default": {"$ref": "#/$defs/A"}, "const": {"$ref": "#/$defs/A"}},
        },
        "$defs": {"A": {"type": "string"}},
    }
    result = inline_local_refs(schema)
    assert result["properties"]["r"] == {"$ref": "https://example.com/schema.json"}
    assert result["properties"]["$ref"] == {"type": "string"}
    assert result["properties"]["d"]["default"] == {"$ref": "#/$defs/A"}
    assert "$defs" not in result


def test_schema_without_defs_is_returned_as_is() -> None:
    schema = {"type": "object", "properties": {}}
    assert inline_local_refs(schema) is schema
