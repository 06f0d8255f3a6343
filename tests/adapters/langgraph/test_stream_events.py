"""Tool progress and log messages reach the agent's stream as typed custom events."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.demo import labels_server_config
from adapters.http import HttpToolset
from adapters.langgraph import ToolEvent, build_agent, is_tool_event
from adapters.mcp_client import McpClientPool
from adapters.testing import Call, OpenAIStub, Turn
from tests.adapters.langgraph.conftest import chat
from tests.support.orders_service import one_tool, serving_orders
from toolkit import ToolContext, ToolRegistry, mcp_tool

ROOT = Path(__file__).resolve().parents[3]


@mcp_tool
async def pack(order: str, context: ToolContext) -> str:
    """Pack an order.

    Args:
        order: The order id.
    """
    await context.report_progress(1, 2, "picking")
    await context.log("info", f"packing {order}")
    await context.report_progress(2, 2, "boxed")
    return f"packed {order}"


@mcp_tool
def weigh(order: str, context: ToolContext) -> str:
    """Weigh an order (a sync tool).

    Args:
        order: The order id.
    """
    context.report_progress_sync(1, None, "on the scale")
    context.log_sync("warning", {"order": order, "kg": 2})
    return "2 kg"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(pack)
    registry.register(weigh)
    return registry


def _script(stub: OpenAIStub) -> None:
    stub.script(
        Turn(
            tool_calls=[
                Call("pack", {"order": "O-1"}, id="c1"),
                Call("weigh", {"order": "O-1"}, id="c2"),
            ]
        ),
        Turn(text="Packed, 2 kg."),
    )


def _expected() -> list[ToolEvent]:
    def event(kind: Any, tool: str, call_id: str, **rest: Any) -> ToolEvent:
        base: dict[str, Any] = {"progress": None, "total": None, "message": None, "level": None}
        return {"type": kind, "tool": tool, "call_id": call_id, **base, **rest}  # type: ignore[typeddict-item]

    return [
        event("tool_progress", "pack", "c1", progress=1, total=2, message="picking"),
        event("tool_log", "pack", "c1", message="packing O-1", level="info"),
        event("tool_progress", "pack", "c1", progress=2, total=2, message="boxed"),
        event("tool_progress", "weigh", "c2", progress=1, message="on the scale"),
        event("tool_log", "weigh", "c2", message='{"order": "O-1", "kg": 2}', level="warning"),
    ]


def _by_call(events: list[Any]) -> list[Any]:
    return sorted(events, key=lambda e: e["call_id"])  # stable: each call's order is kept


def test_sync_and_async_tools_stream_progress_and_logs(stub: OpenAIStub) -> None:
    _script(stub)
    agent = build_agent(chat(stub), _registry())
    chunks = list(
        agent.stream({"messages": [("user", "pack O-1")]}, stream_mode=["custom", "updates"])
    )

    custom = [data for mode, data in chunks if mode == "custom"]
    assert all(is_tool_event(c) for c in custom)
    assert _by_call(custom) == _expected()
    updates: list[Any] = [data for mode, data in chunks if mode == "updates"]
    assert updates[-1]["model"]["messages"][-1].content == "Packed, 2 kg."


@pytest.mark.anyio
async def test_astream_carries_the_same_events(stub: OpenAIStub) -> None:
    _script(stub)
    agent = build_agent(chat(stub), _registry())
    custom = [
        chunk
        async for chunk in agent.astream({"messages": [("user", "pack O-1")]}, stream_mode="custom")
    ]
    assert _by_call(custom) == _expected()


def test_without_custom_mode_nothing_extra_is_streamed(stub: OpenAIStub) -> None:
    _script(stub)
    agent = build_agent(chat(stub), _registry())
    modes = {
        mode
        for mode, _ in agent.stream(
            {"messages": [("user", "x")]}, stream_mode=["updates", "values"]
        )
    }
    assert modes == {"updates", "values"}


def test_a_remote_mcp_tools_progress_is_streamed(stub: OpenAIStub) -> None:
    registry = ToolRegistry()
    with McpClientPool({"mcpServers": {"labels": labels_server_config()}}) as pool:
        pool.register_into_sync(registry)
        stub.script(
            Turn(tool_calls=[Call("labels_shipping_label", {"tracking_id": "TRK-1002"}, id="L1")]),
            Turn(text="Label printed."),
        )
        agent = build_agent(chat(stub), registry)
        custom = list(
            agent.stream({"messages": [("user", "label TRK-1002")]}, stream_mode="custom")
        )
    assert [(e["tool"], e["call_id"], e["progress"], e["total"]) for e in custom] == [
        ("labels_shipping_label", "L1", step, 4) for step in (1, 2, 3, 4)
    ]
    assert custom[-1]["message"] == "done" and custom[0]["type"] == "tool_progress"


def test_a_remote_mcp_tools_log_messages_are_streamed(stub: OpenAIStub) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.conformance.everything_server:registry"],
        "cwd": str(ROOT),
        "env": {"PYTHONPATH": str(ROOT)},
        "include": ["test_tool_with_logging"],
    }
    registry = ToolRegistry()
    with McpClientPool({"mcpServers": {"ev": server}}) as pool:
        pool.register_into_sync(registry)
        stub.script(
            Turn(tool_calls=[Call("ev_test_tool_with_logging", {}, id="G1")]), Turn(text="ok")
        )
        agent = build_agent(chat(stub), registry)
        custom = list(agent.stream({"messages": [("user", "log")]}, stream_mode="custom"))
    assert [(e["type"], e["tool"], e["call_id"], e["level"], e["message"]) for e in custom] == [
        ("tool_log", "ev_test_tool_with_logging", "G1", "info", text)
        for text in ("Tool execution started", "Tool processing data", "Tool execution completed")
    ]


def test_an_http_tools_retries_are_streamed(stub: OpenAIStub) -> None:
    with serving_orders() as (base, _recorder):
        config = one_tool(
            base,
            name="flaky",
            endpoint="/flaky",
            retry_count=2,
            parameters=[{"name": "fail", "parameter_type": "integer", "position": "query"}],
        )
        registry = ToolRegistry()
        with HttpToolset.from_config(config) as toolset:
            toolset.register_into(registry)
            stub.script(Turn(tool_calls=[Call("flaky", {"fail": 1}, id="H1")]), Turn(text="ok"))
            agent = build_agent(chat(stub), registry)
            custom = list(agent.stream({"messages": [("user", "try")]}, stream_mode="custom"))
    [event] = custom
    assert (event["type"], event["tool"], event["call_id"], event["level"]) == (
        "tool_log",
        "flaky",
        "H1",
        "warning",
    )
    assert event["message"] is not None
    assert event["message"].startswith("HTTP 503 from GET flaky; retrying in ")
    assert event["message"].endswith("(attempt 2 of 3)")
