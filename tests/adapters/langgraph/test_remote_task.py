"""An agent over a remote long tool run as an MCP task: its loop stays free while the task
runs, and it ends in the same state as over a plain call of the same tool."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from langchain_core.messages import BaseMessage

from adapters.langgraph import build_agent
from adapters.mcp_client import McpClientPool
from adapters.mcp_server import build_server, http_app
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from tests.support import task_tools
from tests.support.serving import serving
from toolkit import ToolRegistry
from toolkit.tasks.runner import TaskRunner

pytestmark = pytest.mark.anyio

REPORT = {"rows": 12, "seconds": 1.5}


@pytest.fixture
def remote() -> Iterator[tuple[str, TaskRunner]]:
    runner = TaskRunner(poll_interval_ms=100)
    with serving(http_app(build_server(task_tools.build(), tasks=runner))) as url:
        yield f"{url}/mcp", runner


async def _run(stub: OpenAIStub, url: str, protocol: str) -> tuple[dict[str, Any], int]:
    stub.script(
        Turn(tool_calls=[Call("jobs_export_report", REPORT, id="call_1")]),
        Turn(text="The report has 12 rows."),
    )
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await anyio.sleep(0.05)
            ticks += 1

    async with McpClientPool({"jobs": {"url": url, "protocol": protocol}}) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        agent = build_agent(chat(stub), registry)
        async with anyio.create_task_group() as group:
            group.start_soon(tick)
            state = await agent.ainvoke({"messages": [("user", "export the report")]})
            group.cancel_scope.cancel()
    return state, ticks


def _shape(messages: list[BaseMessage]) -> list[tuple[str, Any]]:
    return [(m.type, m.content) for m in messages]


async def test_an_agent_over_a_task_ends_as_over_a_plain_call(
    stub: OpenAIStub, remote: tuple[str, TaskRunner]
) -> None:
    url, runner = remote
    tasked, ticks = await _run(stub, url, "legacy")
    plain, _ = await _run(stub, url, "auto")  # 2026-07-28: the same tool, called plainly
    tasks = await runner.tasks("", 0, 10)
    assert [(t.tool, t.status) for t in tasks] == [("export_report", "completed")]
    # The loop ran on while the agent waited (about 30 ticks in 1.5 s): no thread was held.
    assert ticks >= 5
    assert _shape(tasked["messages"])[1:] == _shape(plain["messages"])[1:]
    assert tasked["messages"][-1].content == "The report has 12 rows."
    assert _rest(tasked) == _rest(plain)


def _rest(state: dict[str, Any]) -> dict[str, Any]:
    """The state besides its messages, without how long each call took."""
    rest = {k: v for k, v in state.items() if k != "messages"}
    rest["tool_calls"] = [
        {k: v for k, v in call.items() if "duration" not in k} for call in rest["tool_calls"]
    ]
    return rest
