"""OpenAPI import, tried on a FastAPI service's own /openapi.json."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from adapters.http import HttpConfigError, HttpToolset
from tests.support.orders_service import Recorder
from toolkit import ErrorCode, ToolRegistry

pytestmark = pytest.mark.anyio


async def test_a_fastapi_document_becomes_one_tool_per_operation(
    base: str, recorder: Recorder
) -> None:
    toolset = HttpToolset.from_openapi(f"{base}/openapi.json", include=["orders"])
    registry = ToolRegistry()
    toolset.register_into(registry, namespace="shop")
    assert sorted(registry.names()) == ["shop_create_order", "shop_get_order"]
    create = registry.get("shop_create_order").spec
    assert create.description == "Create Order\n\nCreate an order."
    assert create.input_schema["required"] == ["item"]  # from the $ref'd NewOrder model
    assert set(create.input_schema["properties"]) == {"item", "quantity", "x-tenant"}
    async with toolset:
        result = await registry.call(
            "shop_create_order", {"item": "pen", "quantity": 2, "x-tenant": "acme"}
        )
        found = await registry.call("shop_get_order", {"userId": "u1", "orderId": "o9"})
    assert result.structured == {"created": "pen", "quantity": 2, "tenant": "acme"}
    post = next(r for r in recorder.requests if r.method == "POST")
    assert post.json() == {"item": "pen", "quantity": 2}
    assert found.structured["orderId"] == "o9"
    assert recorder.last.raw_path == "/users/u1/orders/o9"


async def test_validation_uses_the_documents_schemas(base: str) -> None:
    toolset = HttpToolset.from_openapi(f"{base}/openapi.json", exclude=["test"])
    registry = ToolRegistry()
    toolset.register_into(registry)
    async with toolset:
        result = await registry.call("create_order", {"itme": "pen"})
    assert result.code is ErrorCode.INVALID_PARAMS
    assert "did you mean `item`" in result.content


def spec_doc(**extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/things/{id}": {
                "parameters": [{"$ref": "#/components/parameters/Id"}],
                "get": {"summary": "Get a thing", "tags": ["things"]},
                "put": {
                    "operationId": "put thing!",
                    "requestBody": {"content": {"application/json": {"schema": {"type": "array"}}}},
                },
            }
        },
        "components": {
            "parameters": {"Id": {"name": "id", "in": "path", "schema": {"type": "integer"}}}
        },
    }
    doc.update(extra)
    return doc


def test_names_bodies_refs_and_base_urls() -> None:
    toolset = HttpToolset.from_openapi(spec_doc(), base_url="https://api.test/v1/")
    by_name = {t.name: t for t in toolset.tools}
    assert sorted(by_name) == ["get__things_id", "put_thing"]
    get = by_name["get__things_id"]
    assert get.config.endpoint == "https://api.test/v1/things/{id}"
    assert get.spec.input_schema["properties"]["id"] == {"type": "integer"}
    assert get.spec.input_schema["required"] == ["id"]
    assert by_name["put_thing"].spec.input_schema["properties"]["body"]["type"] == "array"
    served = HttpToolset.from_openapi(spec_doc(servers=[{"url": "https://x.test/api"}]))
    assert served.tools[0].config.endpoint.startswith("https://x.test/api/things/")


def test_a_document_without_a_base_url_says_how_to_give_one() -> None:
    with pytest.raises(HttpConfigError, match="pass base_url="):
        HttpToolset.from_openapi(spec_doc())
    with pytest.raises(HttpConfigError, match=r"not an OpenAPI 3\.x document"):
        HttpToolset.from_openapi({"swagger": "2.0"})


def test_fetching_the_document_obeys_the_network_policy() -> None:
    with pytest.raises(HttpConfigError, match="metadata"):
        HttpToolset.from_openapi("http://169.254.169.254/openapi.json")


def test_an_openapi_section_in_a_tools_file(base: str, tmp_path: Any) -> None:
    doc = httpx.get(f"{base}/openapi.json").json()
    (tmp_path / "orders.json").write_text(__import__("json").dumps(doc))
    file = tmp_path / "tools.yaml"
    file.write_text(f"openapi:\n  spec: orders.json\n  base_url: {base}\n  include: [get_order]\n")
    assert [t.name for t in HttpToolset.from_file(file).tools] == ["get_order"]
