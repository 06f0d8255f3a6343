"""Hostile OpenAPI documents: bounded ``$ref`` expansion, refused name clashes, shapes by path.

Whatever a document holds, loading it ends with tools or one ``HttpConfigError`` whose lines
name the path in the document, never a ``TypeError``/``AttributeError`` and never minutes of
expansion. Sizes are chosen so that even an unbounded loader finishes in seconds.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.http import HttpConfigError, HttpToolset
from toolkit import ToolRegistry

BASE = "http://127.0.0.1:9"


def document(paths: Any, **extra: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths, **extra}


def ref_bomb(levels: int = 9, fan_out: int = 4) -> dict[str, Any]:
    """Each schema refers to the next ``fan_out`` times: ``fan_out ** levels`` leaves."""
    schemas: dict[str, Any] = {f"L{levels}": {"type": "string"}}
    for level in range(levels):
        ref = {"$ref": f"#/components/schemas/L{level + 1}"}
        schemas[f"L{level}"] = {
            "type": "object",
            "properties": {f"p{i}": dict(ref) for i in range(fan_out)},
        }
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}
    op = {"operationId": "boom", "requestBody": body}
    return document({"/boom": {"post": op}}, components={"schemas": schemas})


def test_a_reference_bomb_fails_fast_naming_where() -> None:
    doc = ref_bomb()
    assert len(repr(doc)) < 2500  # a 2 KB document asking for 262,144 leaves
    with pytest.raises(HttpConfigError) as caught:
        HttpToolset.from_openapi(doc, base_url=BASE)
    message = str(caught.value)
    assert "goes past 200000 nodes" in message
    assert "#/components/schemas/L" in message
    assert "include=/exclude=" in message


def test_a_yaml_alias_bomb_fails_fast(tmp_path: Path) -> None:
    lines = [
        "openapi: '3.1.0'",
        "info: {title: t, version: '1'}",
        "x-bomb:",
        "  a0: &a0 [x, x, x, x]",
    ]
    for level in range(1, 10):
        previous = f"*a{level - 1}"
        lines.append(f"  a{level}: &a{level} [{previous}, {previous}, {previous}, {previous}]")
    lines += [
        "paths:",
        "  /boom:",
        "    post:",
        "      operationId: boom",
        "      requestBody:",
        "        content:",
        "          application/json:",
        "            schema: {type: object, properties: {v: {enum: *a9}}}",
    ]
    spec = tmp_path / "bomb.yaml"
    spec.write_text("\n".join(lines) + "\n")
    with pytest.raises(HttpConfigError, match="goes past 200000 nodes"):
        HttpToolset.from_openapi(spec, base_url=BASE)


def test_a_recursive_schema_is_cut_where_it_repeats() -> None:
    node = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
        },
    }
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}
    doc = document(
        {"/tree": {"post": {"operationId": "plant", "requestBody": body}}},
        components={"schemas": {"Node": node}},
    )
    toolset = HttpToolset.from_openapi(doc, base_url=BASE)
    schema = toolset.tools[0].spec.input_schema
    assert schema["properties"]["children"] == {"type": "array", "items": {}}
    registry = ToolRegistry()
    toolset.register_into(registry)
    bad = registry.call_sync("plant", {"name": 3})
    assert bad.code == "INVALID_PARAMS"


def test_two_operations_with_the_same_sanitized_name_are_refused() -> None:
    doc = document(
        {
            "/orders/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True}],
                "get": {"operationId": "get.order"},
                "delete": {"operationId": "get order"},
            }
        }
    )
    with pytest.raises(HttpConfigError) as caught:
        HttpToolset.from_openapi(doc, base_url=BASE)
    message = str(caught.value)
    assert "'get.order'" in message and "'get order'" in message
    assert "both become the tool name 'get_order'" in message
    assert "exclude=['get order']" in message
    # The fix the message names works.
    fixed = HttpToolset.from_openapi(doc, base_url=BASE, exclude=["get order"])
    assert [(t.name, t.config.verb) for t in fixed.tools] == [("get_order", "GET")]


def _op(**fields: Any) -> dict[str, Any]:
    return {"/x": {"get": {"operationId": "x", **fields}}}


MALFORMED: list[tuple[dict[str, Any], str]] = [
    (document(["/x"]), "#/paths: expected an object"),
    (document({"/x": "get"}), "#/paths/~1x: expected an object"),
    (document({"/x": {"get": ["oops"]}}), "#/paths/~1x/get: expected an object"),
    (document(_op(parameters={"name": "a"})), "#/paths/~1x/get/parameters: expected an array"),
    (document(_op(parameters=[{"in": "query"}])), "#/paths/~1x/get/parameters/0/name"),
    (document(_op(parameters=[{"name": "a", "in": "body"}])), "parameters/0/in: 'body'"),
    (document(_op(parameters=[{"name": "a", "in": "query", "schema": "int"}])), "0/schema"),
    (document(_op(parameters=[None])), "#/paths/~1x/get/parameters/0: expected an object"),
    (document(_op(parameters=[{"$ref": "#/nowhere"}])), "'#/nowhere' points to nothing"),
    (document(_op(parameters=[{"$ref": 7}])), "only local $refs"),
    (document(_op(parameters=[{"$ref": "https://evil.test/p.json"}])), "only local $refs"),
    (document({"/x": {"$ref": "#/paths/~1x"}}), "refers back to itself"),
    (document(_op(operationId=7)), "#/paths/~1x/get/operationId: expected a string"),
    (document(_op(tags="admin")), "#/paths/~1x/get/tags: expected an array"),
    (document(_op(requestBody={"content": ["application/json"]})), "requestBody/content"),
    (
        document(
            {"/x": {"post": {"requestBody": {"content": {"application/json": {"schema": 5}}}}}}
        ),
        "content/application~1json",
    ),
    (
        document(
            {
                "/x": {
                    "post": {
                        "requestBody": {
                            "content": {
                                "application/json": {
                                    "schema": {"type": "object", "properties": ["a"]}
                                }
                            }
                        }
                    }
                }
            }
        ),
        "schema/properties: expected an object",
    ),
    (document(_op(), servers="http://x"), "#/servers: expected an array"),
    (document(_op(), servers=[{"url": 5}]), "#/servers/0/url"),
]


@pytest.mark.parametrize(("doc", "where"), MALFORMED)
def test_a_malformed_document_is_a_config_error_naming_the_path(
    doc: dict[str, Any], where: str
) -> None:
    base_url = None if "servers" in doc else BASE
    with pytest.raises(HttpConfigError) as caught:
        HttpToolset.from_openapi(doc, base_url=base_url)
    assert where in str(caught.value)


KEYS = st.sampled_from(
    [
        "openapi", "paths", "/x", "/y/{id}", "get", "post", "parameters", "name", "in",
        "schema", "$ref", "requestBody", "content", "application/json", "properties",
        "required", "type", "items", "servers", "url", "operationId", "tags", "summary",
        "components", "schemas", "S", "query", "path", "header", "cookie", "#/components/schemas/S",
    ]
)  # fmt: skip
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | KEYS | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)
SEED = document(
    {
        "/y/{id}": {
            "parameters": [{"name": "id", "in": "path", "schema": {"type": "integer"}}],
            "get": {"operationId": "get_y", "tags": ["t"]},
            "post": {
                "requestBody": {
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S"}}}
                }
            },
        }
    },
    components={"schemas": {"S": {"type": "object", "properties": {"a": {"type": "string"}}}}},
)


def _graft(doc: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    """``doc`` with ``value`` put at the end of ``path`` (as far as the path exists)."""
    out = copy.deepcopy(doc)
    node: Any = out
    for key in path[:-1]:
        if not isinstance(node, dict) or not isinstance(node.get(key), dict | list):
            break
        node = node[key] if isinstance(node[key], dict) else node[key][0]
    if isinstance(node, dict):
        node[path[-1]] = value
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(path=st.lists(KEYS, min_size=1, max_size=6), value=VALUES)
def test_any_document_loads_or_says_where_it_is_wrong(path: list[str], value: Any) -> None:
    doc = _graft(SEED, path, value)
    try:
        toolset = HttpToolset.from_openapi(doc, base_url=BASE)
    except HttpConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        return
    for tool in toolset.tools:
        assert tool.spec.input_schema["type"] == "object"
