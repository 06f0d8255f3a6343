"""A sync tool reports progress and logs through the sync methods of its context."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from toolkit import CallOptions, ToolContext, ToolRegistry, mcp_tool


class _Channel:
    def __init__(self) -> None:
        self.lines: list[tuple[str, Any, str | None]] = []

    async def log(self, level: str, data: Any, logger: str | None) -> None:
        self.lines.append((level, data, logger))

    async def elicit(self, message: str, schema: Any) -> Any:
        raise AssertionError("not asked")

    async def sample(self, messages: Any, **kwargs: Any) -> str:
        raise AssertionError("not asked")


@mcp_tool
def count(n: int, context: ToolContext) -> int:
    """Count to n.

    Args:
        n: Where to stop.
    """
    for i in range(n):
        context.report_progress_sync(i + 1, n, f"at {i + 1}")
    context.log_sync("info", "counted", logger="counter")
    return n


def _context(seen: list[tuple[Any, ...]], channel: _Channel) -> ToolContext:
    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    return ToolContext(progress=progress, client=channel)  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_from_the_async_entry_point_the_callbacks_run_on_the_callers_loop() -> None:
    registry = ToolRegistry()
    registry.register(count)
    seen: list[tuple[Any, ...]] = []
    channel = _Channel()
    me = threading.get_ident()
    here: list[int] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        here.append(threading.get_ident())
        seen.append((done, total, message))

    context = ToolContext(progress=progress, client=channel)  # type: ignore[arg-type]
    result = await registry.call("count", {"n": 2}, options=CallOptions(context=context))

    assert not result.is_error, result.content
    assert seen == [(1, 2, "at 1"), (2, 2, "at 2")]
    assert here == [me, me]  # the loop that awaits the call, not the tool's thread
    assert channel.lines == [("info", "counted", "counter")]


def test_from_the_sync_entry_point_too() -> None:
    registry = ToolRegistry()
    registry.register(count)
    seen: list[tuple[Any, ...]] = []
    channel = _Channel()
    result = registry.call_sync(
        "count", {"n": 1}, options=CallOptions(context=_context(seen, channel))
    )
    assert not result.is_error, result.content
    assert seen == [(1, 1, "at 1")]
    assert channel.lines == [("info", "counted", "counter")]


@pytest.mark.anyio
async def test_async_code_is_told_to_await_instead() -> None:
    async def progress(done: float, total: float | None, message: str | None) -> None:
        raise AssertionError("not reached")

    with pytest.raises(RuntimeError, match="await the async method"):
        ToolContext(progress=progress).report_progress_sync(1)
