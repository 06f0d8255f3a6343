"""``options=`` is the one per-call vocabulary: the registry's old keywords warn, every sink
passes ``CallOptions`` through to its registry calls."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.graph import START, MessagesState, StateGraph
from mcp import Client

from adapters.langgraph import build_agent, single_turn_node, tool_node
from adapters.mcp_server import build_server
from adapters.testing import ScriptedChatModel
from toolkit import (
    Approval,
    CallOptions,
    CallRequest,
    Decision,
    ErrorCode,
    ToolRegistry,
    mcp_tool,
)


@mcp_tool
def echo(text: str) -> str:
    """Say it back.

    Args:
        text: What to say.
    """
    return text


@mcp_tool(destructive=True)
def wipe(scope: str) -> str:
    """Delete a scope.

    Args:
        scope: What to delete.
    """
    return f"wiped {scope}"


class _Stop(Exception):
    pass


@mcp_tool
def stop() -> str:
    """Always raise."""
    raise _Stop


def _deny(request: CallRequest) -> Decision:
    # Asked without arguments (which tools may this caller see?) it allows, so an agent still
    # offers the tool to its model and the call itself is what gets denied.
    return "deny" if request.arguments else "allow"


#: An observable option: every call is denied by it, whatever the registry's policy says.
DENY_ALL = CallOptions(policy=_deny)


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for tool in (echo, wipe, stop):
        reg.register(tool)
    return reg


@pytest.mark.anyio
async def test_call_options_are_the_one_spelling(registry: ToolRegistry) -> None:
    """The shorthands policy=, approver= and propagate= are gone from every entry point."""
    for keyword, value in (("policy", _deny), ("approver", _deny), ("propagate", (_Stop,))):
        with pytest.raises(TypeError, match=keyword):
            registry.call_sync("echo", {"text": "hi"}, **{keyword: value})
        with pytest.raises(TypeError, match=keyword):
            await registry.call("echo", {"text": "hi"}, **{keyword: value})
        with pytest.raises(TypeError, match=keyword):
            await registry.call_many([("echo", {"text": "a"})], **{keyword: value})
    stopping = CallOptions(propagate=(_Stop,))
    with pytest.raises(_Stop):
        await registry.call("stop", options=stopping)
    many = await registry.call_many([("echo", {"text": "a"})], options=DENY_ALL)
    assert [r.code for r in many] == [ErrorCode.DENIED]


@pytest.mark.anyio
async def test_options_alone_work_without_a_warning(registry: ToolRegistry) -> None:
    approve = CallOptions(approver=lambda request: Approval(True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert registry.call_sync("echo", {"text": "hi"}, options=DENY_ALL).code is ErrorCode.DENIED
        assert (await registry.call("echo", {"text": "hi"}, options=DENY_ALL)).is_error
        assert registry.call_sync("wipe", {"scope": "tmp"}, options=approve).content == "wiped tmp"
        with pytest.raises(_Stop):
            await registry.call("stop", options=CallOptions(propagate=(_Stop,)))
        many = await registry.call_many([("echo", {"text": "a"}, "c1")], options=DENY_ALL)
        assert [(r.code, r.call_id) for r in many] == [(ErrorCode.DENIED, "c1")]
        # context and call_id stay keywords of their own.
        assert registry.call_sync("echo", {"text": "hi"}, call_id="c2").call_id == "c2"


def _denied_message(messages: list[Any]) -> ToolMessage:
    answers = [m for m in messages if isinstance(m, ToolMessage)]
    assert len(answers) == 1 and answers[0].status == "error"
    assert answers[0].artifact["error"]["code"] == "DENIED"
    return answers[0]


def test_build_agent_passes_the_options_to_every_call(registry: ToolRegistry) -> None:
    turn = {"tool_calls": [{"name": "echo", "args": {"text": "hi"}}]}
    agent = build_agent(ScriptedChatModel(turns=[turn, "done"]), registry, options=DENY_ALL)
    state = agent.invoke({"messages": [("user", "go")]})
    _denied_message(state["messages"])
    allowed = build_agent(ScriptedChatModel(turns=[turn, "done"]), registry)
    state = allowed.invoke({"messages": [("user", "go")]})
    assert [m.content for m in state["messages"] if isinstance(m, ToolMessage)] == ["hi"]


def test_single_turn_node_and_tool_node_pass_the_options(registry: ToolRegistry) -> None:
    turn = {"tool_calls": [{"name": "echo", "args": {"text": "hi"}}]}
    builder = StateGraph(MessagesState)
    model = ScriptedChatModel(turns=[turn])
    builder.add_node("turn", single_turn_node(model, registry, options=DENY_ALL))
    builder.add_edge(START, "turn")
    _denied_message(builder.compile().invoke({"messages": [("user", "go")]})["messages"])
    node = tool_node(registry, "echo", {"text": "hi"}, options=DENY_ALL)
    assert node.invoke({}, {})["tool_result"].code is ErrorCode.DENIED


@pytest.mark.anyio
async def test_build_server_merges_the_options_with_its_own(registry: ToolRegistry) -> None:
    async with Client(build_server(registry, options=DENY_ALL), mode="legacy") as client:
        denied = await client.call_tool("echo", {"text": "hi"})
    assert denied.is_error and "DENIED" in str(denied.structured_content or denied.content)
    # An approver in the options answers instead of asking the client's user.
    approve = CallOptions(approver=lambda request: Approval(request.arguments["scope"] == "tmp"))
    async with Client(build_server(registry, options=approve), mode="legacy") as client:
        approved = await client.call_tool("wipe", {"scope": "tmp"})
        refused = await client.call_tool("wipe", {"scope": "all"})
    assert not approved.is_error and refused.is_error


def test_the_registrys_approver_is_public_and_read_only() -> None:
    def approver(request: CallRequest) -> Approval:
        return Approval(True)

    assert ToolRegistry().approver is None
    registry = ToolRegistry(approver=approver)
    assert registry.approver is approver
    with pytest.raises(AttributeError):
        registry.approver = None  # type: ignore[misc]
