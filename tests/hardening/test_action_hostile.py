"""Hostile ``<ACTION>`` answers: linear work with a small constant, and never an exception.

Work is counted, not timed: the number of function calls (Python and C) made while parsing,
seen through ``sys.setprofile``. A run of hostile characters costs the same number of calls
whatever its length (the per-character work happens inside a few C calls); a block of many
elements costs calls in proportion to the elements.
"""

from __future__ import annotations

import gc
import json
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import BaseMessage

from adapters.action_xml import MAX_ELEMENTS, XmlToolCallingModel, parse_action, strip_actions
from adapters.action_xml import _model as model_module
from adapters.langgraph import RunSummary, build_agent
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry, mcp_tool


def calls_made(parse: Callable[[], object]) -> int:
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    # Finalizers of other tests' garbage would count as the parser's calls: collect first and
    # keep the collector out while counting.
    gc.collect()
    gc.disable()
    sys.setprofile(profile)
    try:
        parse()
    finally:
        sys.setprofile(None)
        gc.enable()
    return count


RUNS: dict[str, Callable[[int], str]] = {
    "'<' run, unclosed block": lambda n: "<ACTION>" + "<" * n,
    "'<' run in a value": lambda n: "<ACTION><t><v>" + "<" * n + "</v></t></ACTION>",
    "'&' run in a value": lambda n: "<ACTION><t><v>" + "&" * n + "</v></t></ACTION>",
    "'</' run": lambda n: "<ACTION><t><v>" + "</" * n + "</v></t></ACTION>",
    "'<a ' run": lambda n: "<ACTION><t><v>" + "<a " * n + "</v></t></ACTION>",
    "'&#' run": lambda n: "<ACTION><t><v>" + "&#" * n + "</v></t></ACTION>",
    "'<ACTION ' run": lambda n: "<ACTION " * n,
    "unclosed CDATA openers": lambda n: "<ACTION><t><v>" + "<![CDATA[" * n,
}


@pytest.mark.parametrize("name", list(RUNS))
def test_a_run_of_hostile_characters_costs_no_more_work_when_longer(name: str) -> None:
    make = RUNS[name]
    short = calls_made(lambda: parse_action(make(20_000)))
    long = calls_made(lambda: parse_action(make(80_000)))
    assert long <= short + 40, f"{name}: {short} calls for 20k, {long} for 80k"


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "<ACTION><t>" + "<v>1</v>" * n + "</t></ACTION>",
        lambda n: "<ACTION>" + "<t/>" * n + "</ACTION>",
        lambda n: "<ACTION><t><v>" + "<![CDATA[<]]>&" * n + "</v></t></ACTION>",
    ],
)
def test_work_grows_in_proportion_to_the_elements(make: Callable[[int], str]) -> None:
    one = calls_made(lambda: parse_action(make(2_000)))
    two = calls_made(lambda: parse_action(make(4_000)))
    assert two <= 2 * one + 200


def test_a_large_hostile_value_is_read_exactly() -> None:
    value = "<" * 400_000 + "&" * 1000 + " a < b && c "
    parsed = parse_action(f"Doing it.<ACTION><t><v>{value}</v></t></ACTION>")
    assert parsed.error is None
    assert parsed.calls[0].arguments == {"v": value.strip()}


TEXT = st.lists(
    st.one_of(
        st.text(st.characters(codec=None, exclude_categories=()), max_size=20),
        st.sampled_from(
            [
                "<ACTION>",
                "</ACTION>",
                "<t>",
                "</t>",
                "<v>",
                "</v>",
                "<item>",
                "</item>",
                "<![CDATA[",
                "]]>",
                "<!--",
                "-->",
                "&",
                "&amp;",
                "<",
                "```xml\n",
                "\ud800",
                "\udfff",
                "\ud83d\ude00",
            ]
        ),
    ),
    max_size=30,
).map("".join)
SPECS = [
    {
        "name": "t",
        "description": "A tool.",
        "input_schema": {
            "type": "object",
            "properties": {"v": {"type": "string"}, "n": {"type": "integer"}},
        },
    }
]


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_parse_action_never_raises_and_its_output_encodes(text: str) -> None:
    from toolkit import ToolSpec

    specs = [ToolSpec(**spec) for spec in SPECS]
    for parsed in (parse_action(text), parse_action(text, specs)):
        parsed.response_text.encode("utf-8")
        json.dumps([c.arguments for c in parsed.calls], ensure_ascii=False).encode("utf-8")
        (parsed.error or "").encode("utf-8")
    strip_actions(text).encode("utf-8")


@mcp_tool
def lookup(query: str) -> str:
    """Look something up.

    Args:
        query: What to look up.
    """
    return f"found {query}"


def test_a_lone_surrogate_does_not_stop_an_agent_run() -> None:
    registry = ToolRegistry()
    registry.register(lookup)
    inner = ScriptedChatModel(
        turns=[
            "Looking \ud800 up.<ACTION><lookup><query>a\udfffb</query></lookup></ACTION>",
            "Found it \ud800.",
        ]
    )
    state = build_agent(XmlToolCallingModel(inner), registry).invoke(
        {"messages": [("user", "find a")]}
    )
    assert RunSummary.from_state(state).answer == "Found it \ufffd."
    assert state["tool_calls"][0]["arguments"] == {"query": "a\ufffdb"}
    assert len(inner.calls) == 2
    for call in inner.calls:
        for message in call.messages:
            assert isinstance(message, BaseMessage)
            json.dumps(message.content, ensure_ascii=False).encode("utf-8")


@pytest.mark.anyio
async def test_a_large_answer_is_parsed_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[threading.Thread] = []
    real = model_module.parse_action

    def parse(text: str, specs: Any = None) -> Any:
        threads.append(threading.current_thread())
        return real(text, specs)

    monkeypatch.setattr(model_module, "parse_action", parse)
    registry = ToolRegistry()
    registry.register(lookup)
    big = "<" * (model_module.THREAD_PARSE_CHARS + 1)
    inner = ScriptedChatModel(turns=[f"<ACTION><lookup><query>{big}</query></lookup></ACTION>"])
    model = XmlToolCallingModel(inner).bind_tools(registry)
    message = await model.ainvoke("go")
    assert message.tool_calls[0]["args"] == {"query": big}
    assert threads[0] is not threading.main_thread()


def test_a_block_of_too_many_elements_is_refused_after_a_bounded_amount_of_work() -> None:
    def make(n: int) -> str:
        return "<ACTION><t>" + "<v>1</v>" * n + "</t></ACTION>"

    parsed = parse_action(make(MAX_ELEMENTS + 1))
    assert parsed.error is not None and f"more than {MAX_ELEMENTS} elements" in parsed.error
    assert not parsed.calls
    at_limit = calls_made(lambda: parse_action(make(MAX_ELEMENTS * 2)))
    far_past = calls_made(lambda: parse_action(make(MAX_ELEMENTS * 8)))
    assert far_past <= at_limit + 40


RECURSIVE = {
    "type": "object",
    "properties": {"v": {"$ref": "#/$defs/J"}},
    "$defs": {
        "J": {
            "anyOf": [
                {"type": "object", "properties": {"k": {"$ref": "#/$defs/J"}}, "required": ["z"]},
                {"type": "array", "items": {"$ref": "#/$defs/J"}},
                {"type": "object", "additionalProperties": {"$ref": "#/$defs/J"}},
                {"type": "integer"},
            ]
        }
    },
}


def test_a_recursive_union_schema_does_not_make_nesting_exponential() -> None:
    from toolkit import ToolSpec

    spec = ToolSpec(name="t", description="A tool.", input_schema=RECURSIVE)

    def nested(depth: int, leaf: str = "x") -> str:
        return "<ACTION><t><v>" + "<k>" * depth + leaf + "</k>" * depth + "</v></t></ACTION>"

    shallow = calls_made(lambda: parse_action(nested(6), [spec]))
    deep = calls_made(lambda: parse_action(nested(12), [spec]))
    assert deep <= 4 * shallow, f"{shallow} calls at depth 6, {deep} at depth 12"
    # The reading is the one a full validation picks: no branch fits a string leaf ...
    assert parse_action(nested(2), [spec]).calls[0].arguments == {"v": {"k": {"k": "x"}}}
    # ... and with an integer leaf the first branch that fits all the way down is taken.
    assert parse_action(nested(2, "7"), [spec]).calls[0].arguments == {"v": [[7]]}


def test_a_long_answer_streams_through_the_gate_in_small_chunks() -> None:
    from adapters.action_xml._stream import TextGate

    text = "  " + "word " * 80_000 + "\n```xml\n<ACTION><t><v>1</v></t></ACTION>\n```"
    gate = TextGate()
    shown = "".join(gate.feed(text[i : i + 4]) for i in range(0, len(text), 4))
    assert shown + gate.finish() == ("word " * 80_000).strip()
    assert gate.closed and gate.buffer == text
    spaces = TextGate()
    flood = "a" + " " * 100_000 + "b"
    streamed = "".join(spaces.feed(flood[i : i + 3]) for i in range(0, len(flood), 3))
    assert streamed + spaces.finish() == flood
