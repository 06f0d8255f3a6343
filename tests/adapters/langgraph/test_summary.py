"""RunSummary reads well in a terminal and in a notebook."""

from __future__ import annotations

from adapters.langgraph import RunSummary, build_agent
from adapters.testing import ScriptedChatModel
from toolkit import mcp_tool


@mcp_tool
def ping(host: str) -> str:
    """Ping a host.

    Args:
        host: Host name.
    """
    return f"pong from {host} <ok>"


def test_summary_counts_in_words_and_escapes_html() -> None:
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "ping", "args": {"host": "a"}}]}, "a & b answered"],
        input_tokens=10,
        output_tokens=5,
    )
    summary = RunSummary.from_state(
        build_agent(model, [ping]).invoke({"messages": [("user", "ping a")]})
    )
    text, page = str(summary), summary._repr_html_()
    assert text.startswith("1 tool call in 2 turns, 30 tokens\n")
    assert "pong from a <ok>" in text and text.endswith("answer: a & b answered")
    assert ">1 tool call in 2 turns, 30 tokens</p>" in page
    assert "&lt;ok&gt;" in page and "a &amp; b answered" in page
    assert str(RunSummary(answer="", iterations=0)).startswith(
        "0 tool calls in 0 turns, tokens: none reported"
    )


def test_a_script_reports_no_tokens_unless_told() -> None:
    model = ScriptedChatModel(turns=["hello"])
    state = build_agent(model, [ping]).invoke({"messages": [("user", "hi")]})
    assert state["messages"][-1].usage_metadata is None
    # As the CLI says it: no usage reported is not "0 tokens".
    assert str(RunSummary.from_state(state)).startswith(
        "0 tool calls in 1 turn, tokens: none reported"
    )
    assert "0 tokens" not in RunSummary.from_state(state)._repr_html_()
