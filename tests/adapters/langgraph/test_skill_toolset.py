"""LangGraph skills as a Toolset: a real compiled graph, added later, pinned like any tool."""

from __future__ import annotations

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from adapters.langgraph import GraphTool, SkillToolset, graph_tool
from toolkit import RegistrationError, ToolRegistry, Toolset


class Greeting(TypedDict, total=False):
    name: str
    tone: str
    text: str


def _greet(state: Greeting) -> Greeting:
    return {"text": f"{state['tone']} {state['name']}"}


def _graph() -> object:
    builder = StateGraph(Greeting)
    builder.add_node("greet", _greet)
    builder.add_edge(START, "greet")
    builder.add_edge("greet", END)
    return builder.compile(name="greeter")


SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "tone": {"type": "string"}},
    "required": ["name", "tone"],
}


def _skill(name: str) -> GraphTool:
    return graph_tool(
        _graph(), name=name, description="Greet.", input_schema=SCHEMA, output_key="text"
    )


def test_skills_added_later_reach_the_registry_and_pins_apply() -> None:
    skills = SkillToolset(_skill("greet"))
    assert isinstance(skills, Toolset)
    registry = ToolRegistry()
    registry.add_toolset_sync(skills.pinned({"greet": {"tone": "hello"}}))
    assert registry.call_sync("greet", {"name": "ada"}).content == "hello ada"
    skills.add(_skill("welcome"))
    assert registry.names() == ["greet", "welcome"]
    assert registry.call_sync("welcome", {"name": "bo", "tone": "hi"}).content == "hi bo"
    with pytest.raises(RegistrationError, match="already has a skill named 'welcome'"):
        skills.add(_skill("welcome"))
