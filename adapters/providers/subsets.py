"""Offline checks of the documented schema subsets of each provider, for tests and CI.

Each function returns the problems it finds (an empty list: the provider would accept it), so
a test can run it over every tool an application builds without calling any provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from adapters.providers.anthropic import COMBINATORS
from adapters.providers.gemini import GEMINI_FORMATS, GEMINI_KEYS
from toolkit import is_valid_name

__all__ = ["anthropic_tool_problems", "gemini_declaration_problems", "gemini_schema_problems"]

_GEMINI_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object"})


def gemini_schema_problems(schema: Any, path: str = "(root)") -> list[str]:
    """What in ``schema`` falls outside Gemini's documented ``Schema`` subset."""
    if not isinstance(schema, Mapping):
        return [f"{path}: a schema must be an object"]
    problems = [
        f"{path}: {key!r} is not a Gemini schema key" for key in schema if key not in GEMINI_KEYS
    ]
    kind = schema.get("type")
    if "anyOf" in schema:
        branches = schema["anyOf"]
        if not isinstance(branches, list) or not branches:
            problems.append(f"{path}: 'anyOf' must be a non-empty list")
            return problems
        if "type" in schema:
            problems.append(f"{path}: 'type' beside 'anyOf'")
        for i, branch in enumerate(branches):
            problems += gemini_schema_problems(branch, f"{path}|{i}")
        return problems
    if kind not in _GEMINI_TYPES:
        problems.append(f"{path}: type {kind!r} is not one of {sorted(_GEMINI_TYPES)}")
    fmt = schema.get("format")
    if fmt is not None and fmt not in GEMINI_FORMATS.get(str(kind), frozenset()):
        problems.append(f"{path}: format {fmt!r} is not accepted for type {kind!r}")
    enum = schema.get("enum")
    if enum is not None and (kind != "string" or not all(isinstance(v, str) for v in enum)):
        problems.append(f"{path}: 'enum' is for strings only")
    if kind == "object":
        props = schema.get("properties")
        if path != "(root)" and not props:
            problems.append(f"{path}: an object needs properties")
        for name, sub in (props or {}).items():
            problems += gemini_schema_problems(sub, f"{path}.{name}")
        missing = [r for r in schema.get("required", []) if r not in (props or {})]
        if missing:
            problems.append(f"{path}: required names unknown properties {missing}")
    if kind == "array":
        if "items" not in schema:
            problems.append(f"{path}: an array needs 'items'")
        else:
            problems += gemini_schema_problems(schema["items"], f"{path}[]")
    return problems


def gemini_declaration_problems(declaration: Mapping[str, Any]) -> list[str]:
    """What in a function declaration Gemini would refuse (name, parameters)."""
    problems = []
    name = declaration.get("name")
    if not isinstance(name, str) or not is_valid_name(name):
        problems.append(f"name {name!r} is not a valid function name")
    params = declaration.get("parameters")
    if params is not None:
        if params.get("type") != "object" or not params.get("properties"):
            problems.append("parameters must be an object with properties")
        problems += gemini_schema_problems(params)
    return problems


def anthropic_tool_problems(tool: Mapping[str, Any]) -> list[str]:
    """What in a tool definition Anthropic's Messages API would refuse."""
    problems = []
    name = tool.get("name")
    if not isinstance(name, str) or not is_valid_name(name):
        problems.append(f"name {name!r} is not a valid tool name")
    schema = tool.get("input_schema")
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return [*problems, "input_schema must be an object schema"]
    problems += [
        f"input_schema has {key!r} at its top level" for key in COMBINATORS if key in schema
    ]
    try:
        validator = Draft202012Validator(dict(schema))
        Draft202012Validator.check_schema(dict(schema))
    except Exception as exc:
        return [*problems, f"input_schema is not valid JSON Schema: {exc}"]
    for i, example in enumerate(tool.get("input_examples") or []):
        for error in validator.iter_errors(example):
            problems.append(f"input_examples[{i}]: {error.message}")
    return problems
