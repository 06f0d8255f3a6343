"""``CallOptions``: one typed value, accepted by every entry point and handed down unchanged."""

from __future__ import annotations

import time

import pytest
from langchain_core.messages import ToolMessage

from adapters.langchain import to_langchain_tools
from toolkit import (
    Approval,
    CallOptions,
    CallRecord,
    CallRequest,
    Decision,
    ErrorCode,
    ToolContext,
    ToolRegistry,
    mcp_tool,
)


@mcp_tool
def nap(seconds: float, ctx: ToolContext) -> str:
    """Sleep, then say who asked.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return f"rested for {ctx.get('tenant')}"


@mcp_tool(destructive=True)
def wipe(scope: str) -> str:
    """Delete a scope.

    Args:
        scope: What to delete.
    """
    return f"wiped {scope}"


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(nap)
    reg.register(wipe)
    return reg


def test_options_are_frozen_and_replaceable() -> None:
    options = CallOptions(timeout=1.0)
    with pytest.raises(AttributeError):
        options.timeout = 2.0  # type: ignore[misc]
    assert options.replace(timeout=2.0).timeout == 2.0 and options.timeout == 1.0


@pytest.mark.anyio
async def test_every_registry_entry_point_takes_the_same_options(registry: ToolRegistry) -> None:
    seen: list[CallRecord] = []
    options = CallOptions(
        context=ToolContext(values={"tenant": "acme"}),
        timeout=0.2,
        on_record=seen.append,
        approver=lambda request: Approval(request.arguments["scope"] == "tmp"),
    )
    ok = {"seconds": 0}
    slow = {"seconds": 2}
    assert (await registry.call("nap", ok, options=options)).content == "rested for acme"
    assert registry.call_sync("nap", ok, options=options).content == "rested for acme"
    many = await registry.call_many([("nap", ok), ("nap", slow, "c2")], options=options)
    assert [r.code for r in many] == [None, ErrorCode.TIMEOUT]
    assert many[1].call_id == "c2"
    assert registry.call_sync("nap", slow, options=options).code is ErrorCode.TIMEOUT
    assert registry.call_sync("wipe", {"scope": "tmp"}, options=options).content == "wiped tmp"
    assert registry.call_sync("wipe", {"scope": "all"}, options=options).code is ErrorCode.DENIED
    assert len(seen) == 7 and [r.tool for r in seen].count("wipe") == 2


def test_keywords_win_over_the_options_fields(registry: ToolRegistry) -> None:
    seen: list[str] = []

    def policy(request: CallRequest) -> Decision:
        seen.append(str(request.context.get("tenant")))
        return "allow"

    options = CallOptions(context=ToolContext(values={"tenant": "acme"}), policy=policy)
    other = ToolContext(values={"tenant": "globex"})
    result = registry.call_sync("nap", {"seconds": 0}, other, options=options, call_id="c9")
    assert result.content == "rested for globex" and result.call_id == "c9"
    assert seen == ["globex"]


@pytest.mark.anyio
async def test_langchain_tools_pass_the_options_on(registry: ToolRegistry) -> None:
    seen: list[CallRecord] = []
    options = CallOptions(timeout=0.2, on_record=seen.append)
    tools = {t.name: t for t in to_langchain_tools(registry, options=options)}
    call = {"name": "nap", "args": {"seconds": 2}, "id": "call_1", "type": "tool_call"}
    answer = tools["nap"].invoke(call)
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert answer.artifact["error"]["code"] == "TIMEOUT"
    answer = await tools["nap"].ainvoke({**call, "args": {"seconds": 0}})
    assert answer.status == "success"
    assert [r.call_id for r in seen] == ["call_1", "call_1"]
