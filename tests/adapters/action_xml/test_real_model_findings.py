"""What real small models showed with the text protocol, replayed with scripted models.

* a whitespace-only string value is the value (``<separator> </separator>``);
* a list parameter whose default is ``[]`` gets an example with items;
* after the tool-call limit the final answer never shows raw ACTION XML;
* a call copied from a few-shot example is not run;
* the wrong-then-fixed example is optional (off by default).
"""

from __future__ import annotations

from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from adapters.action_xml import (
    XmlToolCallingModel,
    parse_action,
    render_action,
    render_tools_prompt,
    tool_examples,
)
from adapters.action_xml._model import FINAL_ANSWER_NOTE, NO_ANSWER
from adapters.langgraph import RunSummary, build_agent
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry, mcp_tool

SEEN: list[dict[str, Any]] = []


@mcp_tool
def join_words(words: list[str] = [], separator: str = ",", note: str | None = None) -> str:
    """Join words with a separator.

    Args:
        words: The words.
        separator: Put between the words.
        note: A note kept with the result.
    """
    SEEN.append({"words": words, "separator": separator, "note": note})
    return separator.join(words)


@mcp_tool
def find_city(query: str, limit: int = 3) -> str:
    """Find a city.

    Args:
        query: The city to look for.
        limit: How many results.
    """
    SEEN.append({"query": query, "limit": limit})
    return f"{query}: found"


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(join_words)
    reg.register(find_city)
    return reg


@pytest.mark.parametrize(
    ("xml", "expected"),
    [
        ("<separator> </separator>", {"separator": " "}),
        ("<separator>\n\t</separator>", {"separator": "\n\t"}),
        ("<separator> ; </separator>", {"separator": ";"}),
        ("<separator></separator>", {"separator": ""}),
        ("<note>  </note>", {"note": "  "}),
        ("<words><item> a </item><item> </item></words>", {"words": ["a", " "]}),
    ],
)
def test_a_whitespace_only_string_value_is_kept_as_written(
    xml: str, expected: dict[str, Any]
) -> None:
    parsed = parse_action(f"<ACTION><join_words>{xml}</join_words></ACTION>", registry())
    assert parsed.error is None
    assert parsed.calls[0].arguments == expected


def test_whitespace_around_other_values_is_trimmed_as_before() -> None:
    parsed = parse_action(
        "<ACTION><find_city><query>  Lisbon \n</query><limit> 2 </limit></find_city></ACTION>",
        registry(),
    )
    assert parsed.calls[0].arguments == {"query": "Lisbon", "limit": 2}


def test_a_list_whose_default_is_empty_gets_an_example_with_items() -> None:
    lists = [e for e in tool_examples(registry().specs()) if e.title == "a list"]
    assert lists and lists[0].calls[0][0] == "join_words"
    words = lists[0].calls[0][1]["words"]
    assert len(words) >= 2 and all(words)
    assert "<words></words>" not in lists[0].answer


def test_the_correction_example_is_optional_and_off_by_default() -> None:
    assert "a correction after an error" not in render_tools_prompt(registry())
    model = XmlToolCallingModel(ScriptedChatModel(turns=["ok"]), correction_example=True)
    assert "a correction after an error" in model.bind_tools(registry()).tools_prompt()


def _call(name: str, **arguments: Any) -> str:
    return f"Checking.\n{render_action([(name, arguments)])}"


BLOCK_AND_TEXT = (
    "Lisbon is found.\n```xml\n"
    + render_action([("find_city", {"query": "Porto"})])
    + "\n```\nThat is all I have."
)


def test_after_the_tool_call_limit_an_answer_with_a_block_is_asked_for_again() -> None:
    inner = ScriptedChatModel(
        turns=[
            _call("find_city", query="Lisbon"),
            BLOCK_AND_TEXT,
            "Lisbon was found; Porto was not searched.",
        ]
    )
    state = build_agent(XmlToolCallingModel(inner), registry(), max_iterations=1).invoke(
        {"messages": [("user", "find Lisbon and Porto")]}
    )
    assert RunSummary.from_state(state).answer == "Lisbon was found; Porto was not searched."
    last = inner.calls[-1].messages
    assert isinstance(last[-1], HumanMessage) and last[-1].content == FINAL_ANSWER_NOTE
    assert isinstance(last[-2], AIMessage) and "<ACTION>" in last[-2].content
    assert len(inner.calls) == 3


def test_asked_again_and_still_calling_the_text_around_the_blocks_is_kept() -> None:
    inner = ScriptedChatModel(turns=[BLOCK_AND_TEXT, _call("find_city", query="Porto")])
    message = XmlToolCallingModel(inner).invoke("find Porto")
    assert message.content == "Lisbon is found.\nThat is all I have."
    assert not message.tool_calls and message.response_metadata["action_removed"] is True


def test_a_model_that_only_calls_gets_a_plain_final_answer() -> None:
    block = render_action([("find_city", {"query": "Porto"})])
    message = XmlToolCallingModel(ScriptedChatModel(turns=[block, block])).invoke("find Porto")
    assert message.content == NO_ANSWER and not message.tool_calls


def test_a_streamed_final_answer_shows_no_action_block() -> None:
    inner = ScriptedChatModel(
        turns=[
            "Here is what I found.\n" + render_action([("find_city", {"query": "x"})]),
            "Lisbon, in Portugal.",
        ]
    )
    text = "".join(str(chunk.content) for chunk in XmlToolCallingModel(inner).stream("hi"))
    assert text == "Here is what I found.\nLisbon, in Portugal."


def test_a_plain_final_answer_is_not_asked_again() -> None:
    inner = ScriptedChatModel(turns=["All done, a < b."])
    assert XmlToolCallingModel(inner).invoke("hi").content == "All done, a < b."
    assert len(inner.calls) == 1


def test_a_call_copied_from_an_example_is_not_run() -> None:
    reg = registry()
    examples = tool_examples(reg.specs())
    name, copied = next(
        (n, a) for e in examples for n, a in e.calls if any(isinstance(v, str) for v in a.values())
    )
    inner = ScriptedChatModel(turns=[_call(name, **copied), _call("find_city", query="Lisbon")])
    SEEN.clear()
    message = XmlToolCallingModel(inner).bind_tools(reg).invoke("find Lisbon")
    assert message.tool_calls[0]["args"] == {"query": "Lisbon"}
    assert message.response_metadata["action_retries"] == 1
    told = inner.calls[1].messages[-1].content
    assert "copies an example from the instructions" in told
    assert "values from the user's request" in told


@mcp_tool
def set_mode(mode: Literal["fast", "slow"]) -> str:
    """Set the mode.

    Args:
        mode: The mode.
    """
    return mode


def test_a_call_whose_values_all_come_from_the_schema_is_not_taken_for_a_copy() -> None:
    reg = ToolRegistry()
    reg.register(set_mode)
    shown = [call for e in tool_examples(reg.specs()) for call in e.calls]
    assert ("set_mode", {"mode": "fast"}) in shown
    inner = ScriptedChatModel(turns=[_call("set_mode", mode="fast")])
    message = XmlToolCallingModel(inner).bind_tools(reg).invoke("go fast")
    assert message.tool_calls[0]["args"] == {"mode": "fast"}
    assert message.response_metadata["action_retries"] == 0
