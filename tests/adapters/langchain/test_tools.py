"""Registry tools as LangChain tools: schema, invoke/ainvoke, ToolNode, agents, injection."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import InjectedState, ToolNode, ToolRuntime
from langgraph.types import Command

from adapters.langchain import to_langchain_tools
from adapters.testing import ScriptedChatModel
from tests.toolkit.tools_for_tests import add
from toolkit import (
    ExceptionProcessor,
    ImageContent,
    ToolContext,
    ToolRegistry,
    ToolResult,
    mcp_tool,
)
from toolkit.calls.spec import ToolSpec


class Fatal(Exception):
    pass


@mcp_tool
async def fail(reason: str) -> str:
    """Always fails."""
    raise ValueError(reason)


@mcp_tool
def fatal() -> str:
    """Fails in a way the application wants to see."""
    raise Fatal("stop everything")


@mcp_tool(destructive=True)
def wipe(target: str) -> str:
    """Wipe a target."""
    return f"wiped {target}"


class State(MessagesState):
    user: str


@mcp_tool
def injected(
    x: int,
    user: Annotated[str, InjectedState("user")],
    call_id: Annotated[str, InjectedToolCallId],
    runtime: ToolRuntime,
    ctx: ToolContext,
) -> str:
    """Uses everything LangGraph can inject."""
    return f"{x} {user} {call_id} {len(runtime.state['messages'])} {ctx.get('tenant')}"


class Camera:
    """A non-local tool: it only implements the Tool protocol and returns an image block."""

    runs = "async"

    name = "snapshot"
    spec = ToolSpec(
        name="snapshot",
        description="Take a picture.",
        input_schema={"type": "object", "properties": {}},
    )

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(
            content="a picture", blocks=[ImageContent(data="aGk=", mime_type="image/png")]
        )

    def renamed(self, name: str) -> Camera:
        return self


@pytest.fixture
def registry() -> ToolRegistry:
    processor = ExceptionProcessor().on(Fatal, action="raise")
    reg = ToolRegistry(processor=processor)
    for fn in (add, fail, fatal, wipe, injected):
        reg.register(fn)
    reg.add(Camera())
    return reg


def _graph(tools: list, checkpointer: Any = None, state: type = MessagesState) -> Any:
    builder = StateGraph(state)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "tools")
    return builder.compile(checkpointer=checkpointer)


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)]
    return {"messages": [AIMessage("", tool_calls=tool_calls)]}


def test_model_sees_exactly_the_input_schema(registry: ToolRegistry) -> None:
    for tool in to_langchain_tools(registry):
        spec = registry.get(tool.name).spec
        function = convert_to_openai_tool(tool)["function"]
        expected = {k: v for k, v in spec.input_schema.items() if k != "$schema"}
        assert function["parameters"] == expected
        assert function["description"] == spec.description


@pytest.mark.anyio
async def test_invoke_and_ainvoke_for_sync_async_and_remote_tools(registry: ToolRegistry) -> None:
    tools = {t.name: t for t in to_langchain_tools(registry)}
    assert tools["add"].invoke({"a": 2}) == "3"
    assert await tools["add"].ainvoke({"a": 2, "b": 5}) == "7"
    assert tools["fail"].invoke({"reason": "nope"}).startswith("Error [EXECUTION_ERROR]")
    message = tools["add"].invoke(
        {"name": "add", "args": {"a": 1}, "id": "x1", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage) and message.artifact == {"result": 2}
    picture = await tools["snapshot"].ainvoke(
        {"name": "snapshot", "args": {}, "id": "p", "type": "tool_call"}
    )
    assert (picture.content[0]["type"], picture.content[0]["text"]) == ("text", "a picture")
    assert picture.content[1]["type"] == "image" and picture.content[1]["base64"] == "aGk="


@pytest.mark.anyio
async def test_failures_become_error_messages_in_a_default_tool_node(
    registry: ToolRegistry,
) -> None:
    graph = _graph(to_langchain_tools(registry))
    call = _calls(("fail", {"reason": "bin 404"}), ("add", {"a": "x"}), ("add", {"a": 1}))
    for state in (graph.invoke(call), await graph.ainvoke(call)):
        failed, invalid, ok = state["messages"][1:]
        assert failed.status == "error" and "bin 404" in failed.text
        assert invalid.status == "error" and invalid.text.startswith("Error [INVALID_PARAMS]")
        assert ok.status == "success" and ok.text == "2"
        assert failed.artifact["error"]["code"] == "EXECUTION_ERROR"


def test_raise_rules_still_raise(registry: ToolRegistry) -> None:
    with pytest.raises(Fatal):
        _graph(to_langchain_tools(registry)).invoke(_calls(("fatal", {})))


def test_approval_interrupt_propagates_and_resumes(registry: ToolRegistry) -> None:
    graph = _graph(to_langchain_tools(registry), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    first = graph.invoke(_calls(("wipe", {"target": "disk"})), config)
    assert first["__interrupt__"][0].value["tool"] == "wipe"
    state = graph.invoke(Command(resume="approve"), config)
    assert state["messages"][-1].text == "wiped disk"


def test_langgraph_injection_and_context_keys(registry: ToolRegistry) -> None:
    tools = to_langchain_tools(registry, names=["injected"], context_keys=["tenant"])
    graph = _graph(tools, state=State)
    call = _calls(("injected", {"x": 7, "user": "mallory"}))
    state = graph.invoke({**call, "user": "ann"}, {"configurable": {"tenant": "acme"}})
    assert state["messages"][-1].text == "7 ann c0 1 acme"


# create_react_agent is deprecated in LangGraph 1.x but still what many applications use: it is
# tested on purpose, and its deprecation warning is expected here, not news for the test run.
@pytest.mark.filterwarnings("ignore:create_react_agent has been moved:DeprecationWarning")
def test_works_in_create_react_agent_and_create_agent(registry: ToolRegistry) -> None:
    from langchain.agents import create_agent
    from langgraph.prebuilt import create_react_agent

    tools = to_langchain_tools(registry, names=["add", "fail"])
    script = [
        {
            "tool_calls": [
                {"name": "fail", "args": {"reason": "r"}},
                {"name": "add", "args": {"a": 1}},
            ]
        },
        "done",
    ]
    for factory in (create_react_agent, create_agent):
        model = ScriptedChatModel(turns=script)
        state = factory(model, tools).invoke({"messages": [("user", "go")]})
        statuses = [m.status for m in state["messages"] if isinstance(m, ToolMessage)]
        assert statuses == ["error", "success"] and state["messages"][-1].text == "done"
