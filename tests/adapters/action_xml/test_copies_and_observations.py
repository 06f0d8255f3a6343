"""What SmolLM2-135M did with the text protocol, round 2, replayed with scripted models.

* a refused copy of an example call is told it was a copy, not that its XML was malformed;
* the no-action example's sentence, repeated as the answer, is refused like a copied call;
* the examples are hard to take for an answer (no CDATA sample for a name);
* after failed retries the answer is never a lead-in fragment such as "The action block is:";
* an observation carries what a native tool message would: user-only blocks stay out.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from adapters.action_xml import XmlToolCallingModel, format_observation, render_action
from adapters.action_xml._examples import NO_ACTION_EXAMPLE, tool_examples
from adapters.langchain.messages import to_tool_message
from adapters.langgraph import build_agent
from adapters.testing import ScriptedChatModel
from tests.support.model_runs import desk_registry
from toolkit import TextContent, ToolRegistry, mcp_tool

OLD_NO_ACTION = (
    "The request is already answered above, so no tool is needed: here is the summary you "
    "asked for."
)


@mcp_tool
def find_room(name: str, floor: int = 1) -> str:
    """Find a room by name.

    Args:
        name: The room's name.
        floor: The floor.
    """
    return f"{name} is on floor {floor}"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(find_room)
    return registry


def _copied_call() -> str:
    name, args = next(c for e in tool_examples(_registry().specs()) for c in e.calls)
    return render_action([(name, args)])


def test_a_copied_call_is_told_it_was_a_copy() -> None:
    inner = ScriptedChatModel(
        turns=[_copied_call(), render_action([("find_room", {"name": "Lab"})])]
    )
    message = XmlToolCallingModel(inner).bind_tools(_registry()).invoke("Where is the Lab?")
    assert message.tool_calls[0]["args"] == {"name": "Lab"}
    told = inner.calls[1].messages[-1].content
    assert told.startswith("Observation: Not run: the call of find_room copies an example")
    assert "Malformed" not in told and "CDATA" not in told


def test_the_no_action_example_repeated_as_the_answer_is_refused() -> None:
    for copied in (OLD_NO_ACTION, NO_ACTION_EXAMPLE):
        inner = ScriptedChatModel(turns=[copied, "The Lab is on floor 2."])
        message = XmlToolCallingModel(inner).bind_tools(_registry()).invoke("Where is the Lab?")
        assert message.content == "The Lab is on floor 2."
        assert "copies an example" in inner.calls[1].messages[-1].content


def test_an_example_sentence_with_a_value_changed_is_a_copy_too() -> None:
    from adapters.action_xml._examples import copied_answer, example_answers

    sentences = example_answers(tool_examples(desk_registry()[1].specs()))
    copy = 'I will call send_message with "M-6" written as a CDATA value.'  # SmolLM2's
    assert copied_answer(copy, sentences) is not None
    assert copied_answer("Booking B-1 is cancelled.", sentences) is None
    assert copied_answer("I sent the message to ann@example.org.", sentences) is None


def test_a_copy_to_the_last_retry_ends_empty_and_the_agent_answers_anyway() -> None:
    _, registry = desk_registry()
    inner = ScriptedChatModel(
        turns=[OLD_NO_ACTION, OLD_NO_ACTION, OLD_NO_ACTION, "I can help with bookings."]
    )
    state = build_agent(XmlToolCallingModel(inner), registry).invoke({"messages": [("user", "Hi")]})
    assert state["messages"][-1].text == "I can help with bookings."
    assert state["empty_answer"] == "retried"


def test_a_lead_in_to_a_broken_block_is_not_the_answer() -> None:
    broken = "The action block is:\n<ACTION><find_room><name>Lab</find_room></ACTION>"
    model = XmlToolCallingModel(ScriptedChatModel(turns=[broken, broken]), max_retries=1)
    message = model.bind_tools(_registry()).invoke("Where is the Lab?")
    assert message.content == "" and message.tool_calls == []
    assert "mismatched tag" in message.response_metadata["action_error"]


def test_no_cdata_sample_is_shown_for_a_name() -> None:
    prompt = XmlToolCallingModel(ScriptedChatModel(turns=[])).bind_tools(_registry())
    text = prompt.tools_prompt()  # type: ignore[attr-defined]
    assert "R&D" not in text and "north wing" not in text
    assert NO_ACTION_EXAMPLE in text


@mcp_tool
def count_rooms() -> list[TextContent]:
    """Count the rooms."""
    return [TextContent("3 rooms"), TextContent("note for the person only", audience=("user",))]


def test_an_observation_reads_what_a_native_tool_message_carries() -> None:
    registry = ToolRegistry()
    registry.register(count_rooms)
    result = registry.call_sync("count_rooms", {})
    assert "note for the person only" in result.content  # the text of every block
    native = to_tool_message(result, "call_1")
    observation = format_observation(result)
    assert observation == "Observation: Tool count_rooms executed successfully. Result: 3 rooms"
    assert "note for the person" not in str(native.content)
    # The same result reaching the protocol as the agent's ToolMessage reads the same.
    call = {"name": "count_rooms", "args": {}, "id": "call_1"}
    texts = XmlToolCallingModel(ScriptedChatModel(turns=[])).to_text_messages(
        [HumanMessage("x"), AIMessage("", tool_calls=[call]), native]
    )
    assert texts[-1].content == observation
