"""Helpers shared by the schema tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

from toolkit.schema import FunctionSchema, build_function_schema


def check(schema: dict[str, Any]) -> dict[str, Any]:
    """Assert ``schema`` is valid against the 2020-12 meta-schema and return it."""
    Draft202012Validator.check_schema(schema)
    return schema


def build(fn: Callable[..., Any], **kwargs: Any) -> FunctionSchema:
    """Build and check both schemas against the meta-schema."""
    built = build_function_schema(fn, **kwargs)
    check(built.input_schema)
    assert built.input_schema["type"] == "object"
    assert built.input_schema["additionalProperties"] is False
    if built.output_schema is not None:
        check(built.output_schema)
        assert built.output_schema["type"] == "object"
    return built


def prop(fn: Callable[..., Any], name: str) -> dict[str, Any]:
    """The schema of one parameter."""
    return build(fn).input_schema["properties"][name]


def has_key(node: Any, key: str) -> bool:
    """Whether ``key`` appears as a dict key anywhere in ``node``."""
    if isinstance(node, dict):
        return key in node or any(has_key(v, key) for v in node.values())
    if isinstance(node, list):
        return any(has_key(v, key) for v in node)
    return False
