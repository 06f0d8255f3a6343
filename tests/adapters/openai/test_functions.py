"""OpenAI function definitions and strict mode, checked by the validating stub."""

from __future__ import annotations

import warnings
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from adapters.openai import (
    StrictSchemaWarning,
    drop_strict_nulls,
    to_openai_tools,
    to_strict_schema,
)
from adapters.testing import OpenAIStub, Turn
from toolkit import ToolRegistry, mcp_tool


class Address(BaseModel):
    street: str
    zip: str | None = None


@mcp_tool
def ship(to: Address, priority: int = 1, note: str | None = None) -> str:
    """Ship a parcel.

    Args:
        to: Where to.
        priority: 1 (low) to 3 (high).
        note: For the driver.
    """
    return "ok"


@mcp_tool
def tag(labels: dict[str, str]) -> str:
    """Attach free labels."""
    return "ok"


@mcp_tool(strict=False)
def loose(x: int) -> int:
    """Never strict."""
    return x


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for fn in (ship, tag, loose):
        reg.register(fn)
    return reg


def _post(stub: OpenAIStub, tools: list[dict[str, Any]]) -> httpx.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    return httpx.post(f"{stub.url}/chat/completions", json=body, timeout=10)


def test_strict_true_falls_back_per_tool_and_the_stub_accepts(registry: ToolRegistry) -> None:
    with pytest.warns(StrictSchemaWarning, match="'tag'"):
        tools = to_openai_tools(registry, strict=True)
    fns = {t["function"]["name"]: t["function"] for t in tools}
    assert fns["ship"]["strict"] is True and fns["tag"]["strict"] is False
    params = fns["ship"]["parameters"]
    assert params["required"] == ["to", "priority", "note"]
    assert params["properties"]["priority"]["type"] == ["integer", "null"]
    assert params["properties"]["to"]["additionalProperties"] is False
    assert "$defs" not in params and "$ref" not in str(params)
    with OpenAIStub() as stub:
        stub.script(Turn(text="ok"))
        assert _post(stub, tools).status_code == 200


def test_the_stub_rejects_what_openai_rejects(registry: ToolRegistry) -> None:
    ship_fn = to_openai_tools(registry, names=["ship"])[0]
    forced = {"type": "function", "function": {**ship_fn["function"], "strict": True}}
    bad_name = {"type": "function", "function": {**ship_fn["function"], "name": "Warehouse.ship"}}
    with OpenAIStub() as stub:
        for tools in ([forced], [bad_name], [ship_fn] * 2):
            response = _post(stub, tools)
            assert response.status_code == 400, tools
            assert response.json()["error"]["type"] == "invalid_request_error"


def test_auto_honours_each_tool_and_quietly_falls_back(registry: ToolRegistry) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fns = {
            t["function"]["name"]: t["function"] for t in to_openai_tools(registry, strict="auto")
        }
    assert (fns["ship"]["strict"], fns["tag"]["strict"], fns["loose"]["strict"]) == (
        True,
        False,
        False,
    )
    plain = to_openai_tools(registry)
    assert all("strict" not in t["function"] for t in plain)


def test_responses_format_and_the_128_tool_limit(registry: ToolRegistry) -> None:
    flat = to_openai_tools(registry, api="responses", names=["loose"])
    assert (flat[0]["type"], flat[0]["name"], flat[0]["description"]) == (
        "function",
        "loose",
        "Never strict.",
    )
    assert "function" not in flat[0] and flat[0]["parameters"]["type"] == "object"
    many = ToolRegistry()
    for i in range(129):
        many.register(loose, name=f"t{i}")
    with pytest.raises(ValueError, match="129 tools exceed OpenAI's limit of 128"):
        to_openai_tools(many)


def test_strict_transformer_rules_and_null_dropping(registry: ToolRegistry) -> None:
    schema = {
        "type": "object",
        "properties": {
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "n": {"type": "integer", "default": 2},
        },
        "required": ["pick"],
    }
    strict = to_strict_schema(schema)
    assert "anyOf" in strict["properties"]["pick"] and "default" not in strict["properties"]["n"]
    assert schema["properties"]["n"] == {"type": "integer", "default": 2}  # input untouched
    original = registry.get("ship").spec.input_schema
    assert drop_strict_nulls(original, {"to": {"street": "s"}, "priority": None, "note": None}) == {
        "to": {"street": "s"},
        "note": None,
    }
