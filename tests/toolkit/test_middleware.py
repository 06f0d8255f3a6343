"""Middleware around the run step: order, rewriting, answering, failing, and both ways of waiting."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolkit import (
    CallNext,
    CallOptions,
    ErrorCode,
    Middleware,
    ToolCall,
    ToolContext,
    ToolRegistry,
    ToolResult,
    mcp_tool,
)

SEEN: list[str] = []


@mcp_tool(read_only=True)
def lookup(code: str) -> str:
    """Look a bin code up.

    Args:
        code: The bin code.
    """
    SEEN.append(code)
    return f"bin {code}"


@mcp_tool
async def slow_lookup(code: str) -> str:
    """Look a bin code up, asynchronously.

    Args:
        code: The bin code.
    """
    await asyncio.sleep(0)
    return f"bin {code}"


class Tag:
    """Writes its name around the call into a shared trace."""

    inline = True

    def __init__(self, name: str, trace: list[str]) -> None:
        self.name = name
        self.trace = trace

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        self.trace.append(f"{self.name}>")
        result = await call_next(call)
        self.trace.append(f"<{self.name}")
        return result


class Lower:
    inline = True

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await call_next(call.replace(arguments={"code": call.arguments["code"].lower()}))


class Answer:
    inline = True

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return ToolResult(content="from the middleware")


class Awaits:
    """Awaits real waiting (a thread hop) before and after the tool: not inline."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        await asyncio.sleep(0.001)
        self.threads.append(threading.get_ident())
        result = await call_next(call)
        await asyncio.sleep(0.001)
        result.content += " (checked)"
        return result


class Raises:
    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        raise RuntimeError("the guard service is down")


class Broken:
    inline = True

    async def on_call(self, call: ToolCall, call_next: CallNext) -> Any:
        return "not a result"


def _registry(**fields: Any) -> ToolRegistry:
    registry = ToolRegistry(**fields)
    registry.register(lookup)
    registry.register(slow_lookup)
    return registry


def test_the_protocol_is_checkable() -> None:
    assert isinstance(Tag("a", []), Middleware)
    assert not isinstance(object(), Middleware)


@pytest.mark.parametrize("tool", ["lookup", "slow_lookup"])
def test_registry_middleware_wraps_the_calls_own_first_listed_outermost(tool: str) -> None:
    trace: list[str] = []
    registry = _registry(middleware=[Tag("r1", trace), Tag("r2", trace)])
    options = CallOptions(middleware=[Tag("c1", trace)])
    result = registry.call_sync(tool, {"code": "B-1"}, options=options)
    assert result.content == "bin B-1" and result.record is not None
    assert result.record.answered_by is None  # the tool ran
    assert trace == ["r1>", "r2>", "c1>", "<c1", "<r2", "<r1"]
    trace.clear()
    asyncio.run(registry.call(tool, {"code": "B-1"}, options=options))
    assert trace == ["r1>", "r2>", "c1>", "<c1", "<r2", "<r1"]


def test_configure_replaces_the_registry_middleware() -> None:
    trace: list[str] = []
    registry = _registry()
    registry.configure(middleware=[Tag("late", trace)])
    registry.call_sync("lookup", {"code": "B-2"})
    assert trace == ["late>", "<late"]
    assert isinstance(registry.settings.middleware, tuple)


def test_rewritten_arguments_reach_the_tool_and_are_validated_again() -> None:
    registry = _registry(middleware=[Lower()])
    assert registry.call_sync("lookup", {"code": "B-XY"}).content == "bin b-xy"

    class Wrong:
        inline = True

        async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            return await call_next(call.replace(arguments={"code": 7}))

    refused = registry.call_sync(
        "lookup", {"code": "B-1"}, options=CallOptions(middleware=[Wrong()])
    )
    assert refused.code is ErrorCode.INVALID_PARAMS


def test_a_middleware_answer_is_recorded_with_its_name() -> None:
    before = len(SEEN)
    registry = _registry(middleware=[Tag("outer", []), Answer()])
    result = registry.call_sync("lookup", {"code": "B-3"})
    assert result.content == "from the middleware" and len(SEEN) == before
    assert result.record is not None and result.record.answered_by == "Answer"
    assert result.record.attempts == 0 and result.record.to_dict()["answered_by"] == "Answer"
    assert registry.records[-1].answered_by == "Answer"


@pytest.mark.parametrize("middleware", [Raises(), Broken()])
def test_a_failing_middleware_is_a_coded_error_never_a_crash(middleware: Middleware) -> None:
    registry = _registry()
    options = CallOptions(middleware=[middleware])
    for result in (
        registry.call_sync("lookup", {"code": "B-4"}, options=options),
        asyncio.run(registry.call("slow_lookup", {"code": "B-4"}, options=options)),
    ):
        assert result.is_error and result.code is ErrorCode.EXECUTION_ERROR
        assert "Traceback" not in result.content and "(ref " in result.content
        assert result.record is not None
        assert result.record.answered_by == type(middleware).__name__


def test_a_middleware_awaiting_real_io_works_under_call_sync() -> None:
    awaits = Awaits()
    registry = _registry(middleware=[awaits])
    assert registry.call_sync("lookup", {"code": "B-5"}).content == "bin B-5 (checked)"
    assert registry.call_sync("slow_lookup", {"code": "B-5"}).content == "bin B-5 (checked)"
    # call_sync hands the call to the shared loop's thread, not this one
    assert threading.get_ident() not in awaits.threads


def test_inline_middleware_keeps_a_sync_function_in_the_callers_thread() -> None:
    threads: list[int] = []

    @mcp_tool
    def where() -> int:
        """Which thread runs me."""
        threads.append(threading.get_ident())
        return 1

    registry = ToolRegistry(middleware=[Tag("t", [])], timeout=None)
    registry.register(where)
    registry.call_sync("where")
    assert threads == [threading.get_ident()]


def test_call_many_goes_through_the_chain_for_each_call() -> None:
    trace: list[str] = []
    registry = _registry(middleware=[Tag("m", trace)])
    results = asyncio.run(registry.call_many([("lookup", {"code": f"B-{i}"}) for i in range(5)]))
    assert [r.content for r in results] == [f"bin B-{i}" for i in range(5)]
    assert trace.count("m>") == 5


def test_a_tool_failure_inside_the_chain_stays_the_tools() -> None:
    registry = _registry(middleware=[Tag("m", [])])
    result = registry.call_sync("lookup", {"code": None})
    assert result.code is ErrorCode.INVALID_PARAMS  # validation happens before the chain
    assert result.record is not None and result.record.answered_by is None


def test_the_call_sees_name_spec_context_and_caller() -> None:
    seen: list[ToolCall] = []

    class Spy:
        inline = True

        async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            seen.append(call)
            return await call_next(call)

    registry = _registry(middleware=[Spy()])
    context = ToolContext(values={"caller": "ann"})
    registry.call_sync("lookup", {"code": "B-6"}, context)
    call = seen[0]
    assert call.name == "lookup" and call.spec.annotations.read_only
    assert call.caller == "ann" and call.arguments == {"code": "B-6"}
    assert call.key == 'lookup:{"code":"B-6"}'


def test_a_middleware_cannot_change_which_tool_runs() -> None:
    class Swap:
        inline = True

        async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            return await call_next(call.replace(name="slow_lookup"))

    result = _registry().call_sync(
        "lookup", {"code": "B-8"}, options=CallOptions(middleware=[Swap()])
    )
    assert result.code is ErrorCode.EXECUTION_ERROR and result.record is not None
    assert result.record.answered_by == "Swap"


def test_an_inline_middleware_that_awaits_io_fails_its_call_not_the_caller() -> None:
    class Liar:
        inline = True

        async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
            await asyncio.sleep(0.001)
            return await call_next(call)

    registry = ToolRegistry(timeout=None)
    registry.register(lookup)
    result = registry.call_sync("lookup", {"code": "B-9"}, options=CallOptions(middleware=[Liar()]))
    assert result.code is ErrorCode.EXECUTION_ERROR
