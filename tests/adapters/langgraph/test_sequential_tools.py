"""A sequential tool's call never overlaps the other calls of its turn; the others still do."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from langchain_core.language_models import FakeListChatModel

from adapters.action_xml import XmlToolCallingModel
from adapters.langgraph import build_agent
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from toolkit import mcp_tool


class _Watch:
    """Counts the calls running now; what the sequential call saw when it ran."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.alone_seen: list[int] = []

    def enter(self) -> None:
        with self.lock:
            self.active += 1

    def leave(self) -> None:
        with self.lock:
            self.active -= 1


def _sync_tools(watch: _Watch) -> list[object]:
    barrier = threading.Barrier(2, timeout=20)

    @mcp_tool
    def pick(item: str) -> str:
        """Pick an item (waits for its sibling call: they must run at once)."""
        watch.enter()
        try:
            barrier.wait()
            time.sleep(0.05)
            return f"picked {item}"
        finally:
            watch.leave()

    @mcp_tool(sequential=True)
    def recount(zone: str) -> str:
        """Recount a zone's stock; must run alone."""
        watch.alone_seen.append(watch.active)
        watch.enter()
        time.sleep(0.05)
        watch.leave()
        watch.alone_seen.append(watch.active)
        return f"recounted {zone}"

    return [pick, recount]


def _calls() -> list[Call]:
    return [
        Call("recount", {"zone": "north"}),
        Call("pick", {"item": "a"}),
        Call("pick", {"item": "b"}),
    ]


def test_tool_node_keeps_a_sequential_call_alone(stub: OpenAIStub) -> None:
    watch = _Watch()
    stub.script(Turn(tool_calls=_calls()), Turn(text="Done."))
    state = build_agent(chat(stub), _sync_tools(watch)).invoke({"messages": [("user", "go")]})
    assert [e["is_error"] for e in state["tool_calls"]] == [False, False, False]
    assert watch.alone_seen == [0, 0]


@pytest.mark.anyio
async def test_under_ainvoke_too(stub: OpenAIStub) -> None:
    watch = _Watch()
    arrived: list[int] = []
    both = asyncio.Event()

    @mcp_tool
    async def pick(item: str) -> str:
        """Pick an item (waits for its sibling call)."""
        watch.enter()
        try:
            arrived.append(1)
            if len(arrived) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), 20)
            await asyncio.sleep(0.05)
            return f"picked {item}"
        finally:
            watch.leave()

    @mcp_tool(sequential=True)
    async def recount(zone: str) -> str:
        """Recount a zone's stock; must run alone."""
        watch.alone_seen.append(watch.active)
        await asyncio.sleep(0.05)
        watch.alone_seen.append(watch.active)
        return f"recounted {zone}"

    stub.script(Turn(tool_calls=_calls()), Turn(text="Done."))
    state = await build_agent(chat(stub), [pick, recount]).ainvoke({"messages": [("user", "go")]})
    assert [e["is_error"] for e in state["tool_calls"]] == [False, False, False]
    assert watch.alone_seen == [0, 0]


def test_action_blocks_with_several_calls_too() -> None:
    watch = _Watch()
    block = (
        "Working.\n<ACTION><recount><zone>north</zone></recount>"
        "<pick><item>a</item></pick><pick><item>b</item></pick></ACTION>"
    )
    inner = FakeListChatModel(responses=[block, "Done."])
    state = build_agent(XmlToolCallingModel(inner), _sync_tools(watch)).invoke(
        {"messages": [("user", "go")]}
    )
    assert len(state["tool_calls"]) == 3 and not any(e["is_error"] for e in state["tool_calls"])
    assert watch.alone_seen == [0, 0]
