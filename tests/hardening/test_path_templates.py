"""``{a.b}`` path templates in graph nodes read mapping keys, list indexes and plain public
attributes only: never Python internals, methods or classes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from jinja2 import TemplateError
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from adapters.langgraph import tool_node
from adapters.langgraph.templates import compile_arguments
from toolkit import ToolRegistry, mcp_tool


@dataclass
class Customer:
    name: str
    _secret: str = "s3cret"
    tags: list[str] = field(default_factory=lambda: ["vip"])

    def greet(self) -> str:
        return f"hello {self.name}"


@pytest.mark.parametrize(
    "path",
    [
        "{order.__class__.__init__.__globals__}",
        "{order.__class__}",
        "{customer.__dict__}",
        "{customer.greet.__globals__}",
    ],
)
def test_dunder_paths_are_refused_when_the_node_is_built(path: str) -> None:
    with pytest.raises(TemplateError, match="is not allowed; a path reads mapping keys"):
        compile_arguments({"value": path})


@pytest.mark.parametrize(
    ("path", "what"),
    [
        ("{customer._secret}", "'_secret' of Customer"),
        ("{customer.greet}", "'greet' of Customer"),
        ("{customer.name.upper}", "'upper' of str"),
        ("{customer.tags.append}", "'append' of list"),
    ],
)
def test_private_attributes_and_methods_are_refused_when_rendered(path: str, what: str) -> None:
    render = compile_arguments({"value": path})
    with pytest.raises(TemplateError, match=f"attribute {what} is not readable"):
        render({"customer": Customer("ann")})


def test_mapping_keys_indexes_and_public_attributes_are_read() -> None:
    render = compile_arguments(
        {
            "name": "{customer.name}",
            "tag": "{customer.tags.0}",
            "key": "{order._meta.id}",  # an underscore key of a mapping is data
            "lines": "{order.lines}",
        }
    )
    state = {"customer": Customer("ann"), "order": {"_meta": {"id": 7}, "lines": [1, 2]}}
    assert render(state) == {"name": "ann", "tag": "vip", "key": 7, "lines": [1, 2]}


@mcp_tool
def echo(value: str) -> str:
    """Echo a value."""
    return value


class State(TypedDict, total=False):
    order: Any
    tool_result: Any


def test_a_graph_node_refuses_a_path_into_python_internals() -> None:
    registry = ToolRegistry()
    registry.register(echo)
    with pytest.raises(TemplateError, match=r"'__class__' is not allowed"):
        tool_node(registry, "echo", {"value": "{order.__class__.__init__.__globals__}"})
    builder = StateGraph(State)
    builder.add_node("echo", tool_node(registry, "echo", {"value": "{order._secret}"}))
    builder.add_edge(START, "echo")
    with pytest.raises(TemplateError, match="'_secret' of Customer is not readable"):
        builder.compile().invoke({"order": Customer("ann")})
