"""``build_agent(max_argument_chars=...)``: a call with oversized arguments is not run."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from adapters.langgraph import build_agent
from adapters.testing import ScriptedChatModel
from tests.support.model_runs import desk_registry


def _send(body: str) -> dict[str, object]:
    return {"name": "send_message", "args": {"recipient": "a@b.org", "body": body}}


def test_oversized_arguments_are_refused_with_a_code_and_nothing_runs() -> None:
    desk, registry = desk_registry()
    before = len(desk.outbox)
    long_body = "word " * 400
    model = ScriptedChatModel(
        turns=[
            {"tool_calls": [_send(long_body)]},
            {"tool_calls": [_send("Ready.")]},
            "Sent.",
        ]
    )
    agent = build_agent(model, registry, max_argument_chars=200)
    state = agent.invoke({"messages": [("user", "Tell a@b.org the room is ready.")]})
    refused, sent = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert refused.status == "error"
    assert str(refused.content).startswith("Error [INVALID_PARAMS] in tool 'send_message': ")
    assert "at most 200" in str(refused.content)
    assert refused.artifact["error"]["details"]["max_argument_chars"] == 200
    assert sent.status == "success" and len(desk.outbox) == before + 1
    assert [c["code"] for c in state["tool_calls"]] == ["INVALID_PARAMS", None]


def test_no_bound_by_default() -> None:
    _, registry = desk_registry()
    model = ScriptedChatModel(
        turns=[
            {"tool_calls": [_send("x" * 5000)]},
            "Sent.",
        ]
    )
    state = build_agent(model, registry).invoke({"messages": [("user", "Send it.")]})
    assert state["tool_calls"][0]["is_error"] is False
