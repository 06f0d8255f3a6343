"""A tool says how it runs (``Tool.runs``); the invoker asks that, never the tool's type."""

from __future__ import annotations

import threading
from typing import Any

from toolkit import PinnedTool, ToolContext, ToolRegistry, ToolResult, ToolSpec, mcp_tool
from toolkit.tool import ToolRuns


class Inline:
    """A hand-written blocking tool: no ``FunctionTool``, yet the sync path runs it inline."""

    def __init__(self, runs: ToolRuns = "sync") -> None:
        self.runs = runs
        self.name = "where"
        self.spec = ToolSpec(name="where", description="Say where it ran.", input_schema={})
        self.threads: list[str] = []

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        self.threads.append("loop:" + threading.current_thread().name)
        return ToolResult(content="async")

    def call_inline(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        self.threads.append(threading.current_thread().name)
        return ToolResult(content="inline")

    def renamed(self, name: str) -> Inline:
        return self


def test_a_sync_tool_runs_in_the_callers_thread() -> None:
    tool = Inline("sync")
    registry = ToolRegistry(timeout=None)
    registry.add(tool)
    assert registry.call_sync("where", {}).content == "inline"
    assert tool.threads == [threading.current_thread().name]


def test_an_async_tool_runs_on_a_loop_from_the_sync_entry_point() -> None:
    tool = Inline("async")
    registry = ToolRegistry(timeout=None)
    registry.add(tool)
    assert registry.call_sync("where", {}).content == "async"
    assert tool.threads[0].startswith("loop:")


def test_function_tools_say_how_they_run() -> None:
    @mcp_tool
    def blocking() -> str:
        """Block."""
        return "x"

    @mcp_tool
    async def waiting() -> str:
        """Wait."""
        return "x"

    registry = ToolRegistry()
    registry.register(blocking)
    registry.register(waiting)
    assert registry.get("blocking").runs == "sync"
    assert registry.get("waiting").runs == "async"
    assert PinnedTool(registry.get("waiting"), {}).runs == "async"


def test_a_remote_tool_keeps_its_own_deadline() -> None:
    tool = Inline("remote")
    registry = ToolRegistry(timeout=0.000001)  # would stop any local tool at once
    registry.add(tool)
    assert registry.call_sync("where", {}).content == "async"
