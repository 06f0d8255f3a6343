"""An image returned by a remote tool (server-everything's ``get-tiny-image``) reaches the real
ChatOpenAI as a user message after the tool message, so the next request stays valid."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from adapters.langchain import images_out_of_tool_messages, to_tool_message
from adapters.langgraph import build_agent
from adapters.mcp_client import McpClientPool
from tests.adapters.langgraph.conftest import chat
from tests.support.openai_stub import Call, OpenAIStub, Turn
from toolkit import ToolRegistry

EVERYTHING = Path(__file__).resolve().parents[3] / ".peers/node_modules/.bin/mcp-server-everything"


def test_a_remote_tools_image_follows_in_a_user_message(stub: OpenAIStub) -> None:
    command = str(EVERYTHING)
    registry = ToolRegistry()
    with McpClientPool(
        {"mcpServers": {"ev": {"command": command, "include": ["get-tiny-image"]}}}
    ) as pool:
        pool.register_into_sync(registry)
        stub.script(Turn(tool_calls=[Call("ev_get-tiny-image", {})]), Turn(text="A tiny image."))
        agent = build_agent(chat(stub), registry)
        done = agent.invoke({"messages": [("user", "Show me the tiny image.")]})
    assert stub.rejections == []
    assert done["messages"][-1].content == "A tiny image."
    sent = stub.requests[1]["messages"]
    tool = next(m for m in sent if m["role"] == "tool")
    assert all(part["type"] == "text" for part in tool["content"])
    assert "[The tool returned 1 image; shown in the next user message.]" in str(tool["content"])
    after = sent[sent.index(tool) + 1]
    assert after["role"] == "user"
    assert [p["type"] for p in after["content"]] == ["text", "image_url"]
    assert after["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_sent_as_is_the_same_conversation_is_refused(stub: OpenAIStub) -> None:
    command = str(EVERYTHING)
    registry = ToolRegistry()
    with McpClientPool(
        {"mcpServers": {"ev": {"command": command, "include": ["get-tiny-image"]}}}
    ) as pool:
        pool.register_into_sync(registry)
        result = registry.call_sync("ev_get-tiny-image", {})
    asked = AIMessage("", tool_calls=[{"name": "ev_get-tiny-image", "args": {}, "id": "c1"}])
    messages = [HumanMessage("Show it."), asked, to_tool_message(result, "c1")]
    stub.script(Turn(text="ok"), Turn(text="ok"))
    with pytest.raises(Exception, match="must be a string or an array of text parts"):
        chat(stub).invoke(messages)
    converted = images_out_of_tool_messages(messages)
    assert chat(stub).invoke(converted).content == "ok"
    assert [type(m) for m in converted] == [HumanMessage, AIMessage, ToolMessage, HumanMessage]
    # A conversation without media comes back as it was.
    plain = [HumanMessage("hi"), AIMessage("hello")]
    assert images_out_of_tool_messages(plain) == plain
