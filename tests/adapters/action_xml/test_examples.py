"""The tools prompt and its generated examples: every example parses, every call validates."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from adapters.action_xml import ActionCall, parse_action, render_tools_prompt, tool_examples
from adapters.demo import warehouse
from tests.adapters.action_xml.tools import protocol_registry
from toolkit import InvalidArguments, ToolRegistry


def _warehouse() -> ToolRegistry:
    registry = ToolRegistry()
    registry.scan(warehouse)
    return registry


@pytest.mark.parametrize("make", [protocol_registry, _warehouse], ids=["protocol", "warehouse"])
def test_every_example_parses_and_every_meant_call_validates(
    make: Callable[[], ToolRegistry],
) -> None:
    registry = make()
    examples = tool_examples(registry.specs(), correction=True)
    assert examples
    for example in examples:
        parsed = parse_action(example.answer, registry)
        assert parsed.error is None
        assert parsed.calls == [ActionCall(n, a) for n, a in example.calls]
        for call in parsed.calls:
            registry.get(call.name).validate(dict(call.arguments))
        if example.before is not None:
            wrong = parse_action(example.before[0], registry)
            assert wrong.calls == [ActionCall(n, a) for n, a in example.before_calls]
            with pytest.raises(InvalidArguments):
                registry.get(wrong.calls[0].name).validate(dict(wrong.calls[0].arguments))


def test_the_examples_cover_every_kind_the_tools_allow() -> None:
    titles = [e.title for e in tool_examples(protocol_registry().specs())]
    assert titles == [
        "a simple value",
        "a list",
        "a nested object",
        "a CDATA value",
        "an answer with no action",
    ]
    with_correction = tool_examples(protocol_registry().specs(), correction=True)
    assert with_correction[-1].title == "a correction after an error"
    cdata = next(
        e for e in tool_examples(protocol_registry().specs()) if e.title == "a CDATA value"
    )
    assert "<![CDATA[" in cdata.answer and cdata.calls[0][0] == "ApplyDiffTool"


def test_the_prompt_lists_tools_parameters_and_the_rules() -> None:
    prompt = render_tools_prompt(protocol_registry())
    assert prompt.startswith("You have access to the following tools:")
    assert "*   `<ReadWorldStateTool>`: Reads a value from the shared world state." in prompt
    assert "`<path>` (string, required): The dot-separated path" in prompt
    assert (
        '`<priority>` (string, optional): How soon to process them. One of: "low", "high".'
        in prompt
    )
    assert "`<names>` (list of string, required)" in prompt
    assert "`<_3d-render>`: Render a scene in 3D." in prompt
    assert "<![CDATA[" in prompt and "<item>" in prompt
    assert "a correction after an error" not in prompt
    with_correction = render_tools_prompt(protocol_registry(), correction_example=True)
    assert "Example 6 (a correction after an error):" in with_correction
    assert "Example" not in render_tools_prompt(protocol_registry(), examples=False)


def test_examples_avoid_destructive_tools_when_others_exist() -> None:
    for example in tool_examples(_warehouse().specs()):
        assert all(name != "delete_bin" for name, _ in example.calls)
