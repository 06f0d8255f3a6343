"""OpenAI strict mode: turn a neutral JSON Schema into the form strict function calling accepts.

Strict mode wants every object closed (``additionalProperties: false``), every property listed
in ``required`` (an optional parameter becomes nullable instead), ``anyOf`` instead of
``oneOf`` and no ``$ref`` with sibling keys. Some schemas cannot be expressed that way (an open
``dict[str, X]``, an ``Any`` value, a recursive model, tuples): :func:`to_strict_schema` raises
:class:`NotStrictable` for them, and callers fall back to non-strict for that tool alone.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["NotStrictable", "drop_strict_nulls", "to_strict_schema"]

_UNSUPPORTED = ("prefixItems", "patternProperties", "not", "if", "then", "else")


class NotStrictable(ValueError):
    """A schema has no strict-mode equivalent; the message says which part and why."""


def to_strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict-mode form of an object schema (the input is not modified).

    Args:
        schema: A JSON Schema of ``type: object`` (a tool's input schema).

    Returns:
        A new schema: closed objects, every property required, optionals nullable,
        local ``$ref`` inlined, ``oneOf`` turned into ``anyOf``.

    Raises:
        NotStrictable: When some part cannot be made strict (open dicts, ``Any`` values,
            recursive references, tuple items…).
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions", "$schema")}
    if not root.get("properties") and root.get("type", "object") == "object":
        root.setdefault("properties", {})
        root.setdefault("type", "object")
    strict: dict[str, Any] = _strict(copy.deepcopy(root), defs, "(root)", ())
    return strict


def _resolve(ref: str, defs: dict[str, Any], path: str, seen: tuple[str, ...]) -> dict[str, Any]:
    if ref in seen:
        raise NotStrictable(f"{path}: {ref} refers to itself; recursive schemas stay non-strict")
    name = ref.rsplit("/", 1)[-1]
    if not ref.startswith("#/") or name not in defs:
        raise NotStrictable(f"{path}: cannot resolve {ref!r}; only local $defs are inlined")
    return copy.deepcopy(defs[name])


def _strict(node: Any, defs: dict[str, Any], path: str, seen: tuple[str, ...]) -> Any:
    if not isinstance(node, dict):
        raise NotStrictable(f"{path}: a schema must be an object, got {node!r}")
    if "$ref" in node:
        ref = node.pop("$ref")
        target = _resolve(ref, defs, path, seen)
        merged = {**target, **node}  # sibling keys (description…) win over the target's
        return _strict(merged, defs, path, (*seen, ref))
    for key in _UNSUPPORTED:
        if key in node:
            raise NotStrictable(f"{path}: {key!r} has no strict-mode equivalent")
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1:
        del node["allOf"]
        return _strict({**all_of[0], **node}, defs, path, seen)
    if "anyOf" in node:
        node["anyOf"] = [
            _strict(sub, defs, f"{path}, anyOf {i}", seen) for i, sub in enumerate(node["anyOf"])
        ]
        return node
    if "allOf" in node:
        raise NotStrictable(f"{path}: 'allOf' with several schemas has no strict-mode equivalent")
    kind = node.get("type")
    if kind is None and "enum" not in node and "const" not in node:
        raise NotStrictable(f"{path}: a value of any type (no 'type') cannot be strict")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds:
        _strict_object(node, defs, path, seen)
    if "array" in kinds and "items" in node:
        node["items"] = _strict(node["items"], defs, f"{path}, items", seen)
    return node


def _strict_object(
    node: dict[str, Any], defs: dict[str, Any], path: str, seen: tuple[str, ...]
) -> None:
    props = node.get("properties")
    extra = node.get("additionalProperties")
    if not props and extra is not False:
        raise NotStrictable(f"{path}: an open object (a dict of any keys) cannot be strict")
    if extra not in (None, False):
        raise NotStrictable(f"{path}: 'additionalProperties' must be false in strict mode")
    required = set(node.get("required", []))
    new_props: dict[str, Any] = {}
    for name, sub in (props or {}).items():
        strict_sub = _strict(sub, defs, f"{path}, {name!r}", seen)
        if name not in required:
            strict_sub = _nullable(strict_sub)
        new_props[name] = strict_sub
    node["properties"] = new_props
    node["required"] = list(new_props)
    node["additionalProperties"] = False


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` also accepting ``null`` (strict mode's way to say "optional")."""
    node.pop("default", None)
    if _allows_null(node):
        return node
    kind = node.get("type")
    if "enum" in node:
        node["enum"] = [*node["enum"], None]
        if kind is None:
            return node
    if isinstance(kind, str) and "anyOf" not in node:
        node["type"] = [kind, "null"]
        return node
    if isinstance(kind, list):
        node["type"] = [*kind, "null"]
        return node
    if "anyOf" in node:
        node["anyOf"] = [*node["anyOf"], {"type": "null"}]
        return node
    description = node.pop("description", None)
    wrapped: dict[str, Any] = {"anyOf": [node, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped


def _allows_null(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(isinstance(s, dict) and _allows_null(s) for s in node.get("anyOf", []))


def drop_strict_nulls(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Undo strict mode's "optional means null" for one call's arguments.

    A strict model must send every parameter, using ``null`` for the ones it means to leave
    out. Top-level ``null`` values of parameters that are optional in the original ``schema``
    and do not accept ``null`` there are removed, so the tool's own defaults apply.

    Calls through a registry need not do this: the call path itself reads such a ``null`` as
    "not given" for every tool. This is for arguments handed to code outside the registry.

    Args:
        schema: The tool's original (non-strict) input schema.
        arguments: The arguments the model sent.

    Returns:
        A new dict without those ``null`` values.
    """
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    return {
        key: value
        for key, value in arguments.items()
        if not (
            value is None
            and key not in required
            and isinstance(props.get(key), dict)
            and not _allows_null(props[key])
        )
    }
