"""Gemini and Anthropic tool forms, beside OpenAI's strict form: each fits its provider's
documented subset per tool, names what it changed, and drops no tool."""

from __future__ import annotations

import importlib
import warnings
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

from adapters.openai import to_openai_tools
from adapters.providers import (
    ProviderSchemaWarning,
    anthropic_tool_problems,
    gemini_declaration_problems,
    to_anthropic_tools,
    to_gemini_schema,
    to_gemini_tools,
)
from adapters.testing import validate_request
from toolkit import FunctionTool, Tool, ToolRegistry, ToolSpec, mcp_tool
from toolkit.decorator import definition_of

ROOT = Path(__file__).resolve().parents[3]


class Address(BaseModel):
    street: str
    country: Literal["DE", "FR"] = "DE"


class Category(BaseModel):
    name: str
    children: list[Category] = []


@mcp_tool(examples=[{"to": {"street": "Main 1"}, "priority": 1, "contact": "a@b.de"}])
def ship(
    to: Address,
    priority: Literal[1, 2, 3],
    contact: Annotated[str, Field(json_schema_extra={"format": "email"})],
    on: date | None = None,
    extra: dict[str, int] | None = None,
    size: tuple[int, int] | None = None,
    note: str | int | None = None,
) -> str:
    """Ship a parcel.

    Args:
        to: Where to.
        priority: 1 is fastest.
        contact: Who to tell.
        on: The day to ship.
        extra: Free counters.
        size: Width and height.
        note: A note or a number.
    """
    return "shipped"


@mcp_tool
def file_under(category: Category) -> str:
    """File something under a category tree."""
    return category.name


@mcp_tool
def ping(host: str) -> str:
    """Ping a host."""
    return host


def _gemini(tools: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = to_gemini_tools(tools)
    return out, [str(w.message) for w in caught if w.category is ProviderSchemaWarning]


def test_a_plain_schema_passes_unchanged_and_silently() -> None:
    tool = FunctionTool(ping)
    declarations, warned = _gemini([tool])
    assert warned == []
    assert declarations == [
        {
            "name": "ping",
            "description": "Ping a host.",
            "parameters": {
                "type": "object",
                "properties": {"host": {"type": "string"}},
                "required": ["host"],
            },
        }
    ]


def test_gemini_form_inlines_refs_and_names_every_change() -> None:
    declarations, warned = _gemini([FunctionTool(ship)])
    params = declarations[0]["parameters"]
    assert gemini_declaration_problems(declarations[0]) == []
    props = params["properties"]
    assert props["to"]["properties"]["country"] == {
        "type": "string",
        "enum": ["DE", "FR"],
        "default": "DE",
    }
    assert (
        props["priority"]["type"] == "integer"
        and "One of: 1, 2, 3." in props["priority"]["description"]
    )
    assert (
        props["contact"]["type"] == "string" and "Format: email." in props["contact"]["description"]
    )
    assert props["on"]["nullable"] is True and "Format: date." in props["on"]["description"]
    assert props["extra"]["type"] == "string" and props["extra"]["nullable"] is True
    assert props["note"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
    [message] = warned
    assert message.startswith("Tool 'ship' is sent to Gemini with a changed schema")
    for change in (
        "priority: a non-string 'enum' moved into the description",
        "contact: the format 'email' moved into the description",
        "extra: an object without listed properties became a string (JSON text)",
        "size: 'prefixItems' was dropped",
    ):
        assert change in message


def test_a_recursive_model_is_cut_not_refused() -> None:
    schema, notes = to_gemini_schema(FunctionTool(file_under).spec.input_schema)
    children = schema["properties"]["category"]["properties"]["children"]
    assert children["items"]["properties"]["name"] == {"type": "string"}
    cut = children["items"]["properties"]["children"]["items"]
    assert cut == {"type": "string", "description": "A JSON object, written as JSON text."}
    assert notes[0] == (
        "category.children[].children[]: the recursive reference #/$defs/Category became "
        "{'type': 'object'}"
    )


def test_anthropic_form_carries_examples_and_keeps_valid_ones_only() -> None:
    registry = ToolRegistry()
    registry.register(ship)
    [tool] = to_anthropic_tools(registry)
    assert tool["input_examples"] == [dict(e) for e in registry.get("ship").spec.examples]
    assert tool["input_schema"]["properties"]["to"]["properties"]["street"] == {"type": "string"}
    assert anthropic_tool_problems(tool) == []

    bad = ToolSpec(
        name="remote_tool",
        description="A tool whose server sent a stale example.",
        input_schema={"anyOf": [{"properties": {"a": {"type": "string"}}}], "required": ["a"]},
        examples=({"a": 1}, {"a": "ok"}),
    )
    with pytest.warns(ProviderSchemaWarning) as caught:
        [fixed] = to_anthropic_tools([_SpecOnly(bad)])  # type: ignore[list-item]
    assert fixed["input_examples"] == [{"a": "ok"}]
    assert fixed["input_schema"]["properties"] == {"a": {"type": "string"}}
    assert anthropic_tool_problems(fixed) == []
    text = str(caught[0].message)
    assert "top-level 'anyOf' was merged" in text and "example 1 does not fit" in text


class _SpecOnly:
    def __init__(self, spec: ToolSpec) -> None:
        self.spec = spec
        self.name = spec.name


# -- every schema the test suite's tools build ---------------------------------------------

#: Scripts that read their command line when imported: started as servers, never imported.
_SCRIPTS = {"tests.hardening.misbehaving_server"}


def _suite_tools() -> list[Tool]:
    """Every tool defined at module level in the test suite and the demo (functions and
    registries), each once."""
    paths = [
        *sorted((ROOT / "tests").rglob("*.py")),
        *sorted((ROOT / "adapters" / "demo").rglob("*.py")),
    ]
    functions: dict[int, Any] = {}
    tools: dict[str, Tool] = {}
    for path in paths:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if name in _SCRIPTS or "notebooks" in name or name.endswith(("conftest", "__main__")):
            continue
        module = importlib.import_module(name)
        for value in list(vars(module).values()):
            if definition_of(value) is not None and callable(value):
                functions[id(value)] = value
            elif isinstance(value, ToolRegistry):
                for tool in value:
                    tools.setdefault(f"{name}:{tool.name}", tool)
    for fn in functions.values():
        tool = FunctionTool(fn)
        tools.setdefault(f"{fn.__module__}.{fn.__qualname__}", tool)
    return list(tools.values())


def test_every_suite_tool_fits_each_providers_subset_and_none_is_dropped() -> None:
    tools = _suite_tools()
    assert len(tools) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gemini = to_gemini_tools(tools)
        anthropic = to_anthropic_tools(tools)
        openai = [to_openai_tools([tool], strict=True)[0] for tool in tools]
    assert len(gemini) == len(anthropic) == len(openai) == len(tools)
    problems = {}
    for tool, declaration, definition, function in zip(
        tools, gemini, anthropic, openai, strict=True
    ):
        found = gemini_declaration_problems(declaration) + anthropic_tool_problems(definition)
        try:
            validate_request(
                {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [function]}
            )
        except ValueError as exc:
            found.append(f"OpenAI: {exc}")
        if found:
            problems[tool.name] = found
    assert problems == {}
