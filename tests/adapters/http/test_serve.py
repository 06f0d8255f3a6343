"""HTTP tools everywhere a tool goes: toolkit serve (listed and called by an MCP client),
toolkit inspect / call, and a LangGraph agent's tool list."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.cli import app
from adapters.mcp_client import McpClientPool
from tests.support.orders_service import Recorder, example_config
from toolkit import ToolRegistry

ROOT = Path(__file__).resolve().parents[3]
CLI = "from adapters.cli import main; main()"


def serve_config(*serve_args: str) -> dict[str, Any]:
    return {
        "mcpServers": {
            "orders": {
                "command": sys.executable,
                "args": ["-c", CLI, "serve", *serve_args],
                "cwd": str(ROOT),
            }
        }
    }


def call_through_mcp(config: dict[str, Any]) -> tuple[list[str], Any]:
    registry = ToolRegistry()
    with McpClientPool(config) as pool:
        pool.register_into_sync(registry)
        names = registry.names()
        result = registry.call_sync(
            "orders_get_order", {"userId": "u1", "orderId": "o5", "Authorization": "Bearer t"}
        )
    return names, result


def test_serve_http_tools_file_is_listed_and_called_by_an_mcp_client(
    base: str, recorder: Recorder, tmp_path: Path
) -> None:
    file = tmp_path / "http_tools.json"
    file.write_text(json.dumps(example_config(base)))
    names, result = call_through_mcp(serve_config("--http-tools", str(file)))
    assert names == ["orders_get_order"]
    assert not result.is_error, result.content
    assert result.content.startswith("Order ID: o5\nStatus: shipped\nItems:\n- widget: $2.5")
    assert recorder.last.raw_path == "/users/u1/orders/o5"
    assert recorder.last.headers["authorization"] == "Bearer t"


def test_serve_config_with_an_http_tools_section(
    base: str, recorder: Recorder, tmp_path: Path
) -> None:
    file = tmp_path / "mcp.json"
    file.write_text(json.dumps(example_config(base)))
    names, result = call_through_mcp(serve_config("--config", str(file)))
    assert names == ["orders_get_order"]
    assert result.structured["status"] == "shipped"


def test_serve_a_fastapi_openapi_document(base: str, recorder: Recorder, tmp_path: Path) -> None:
    file = tmp_path / "api.yaml"
    file.write_text(f"openapi:\n  spec: {base}/openapi.json\n  include: [orders]\n")
    registry = ToolRegistry()
    with McpClientPool(serve_config("--http-tools", str(file))) as pool:
        pool.register_into_sync(registry)
        result = registry.call_sync("orders_create_order", {"item": "cup"})
    assert sorted(registry.names()) == ["orders_create_order", "orders_get_order"]
    assert result.structured == {"created": "cup", "quantity": 1, "tenant": ""}


def test_inspect_and_call_take_an_http_tools_file(
    base: str, recorder: Recorder, tmp_path: Path
) -> None:
    file = tmp_path / "http_tools.json"
    file.write_text(json.dumps(example_config(base)))
    runner = CliRunner()
    listed = runner.invoke(app, ["inspect", str(file), "--json"])
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.output)[0]["name"] == "get_order"
    args = json.dumps({"userId": "u2", "orderId": "o3", "Authorization": "t"})
    called = runner.invoke(app, ["call", str(file), "get_order", args, "--json"])
    assert called.exit_code == 0, called.output
    assert json.loads(called.output)["structured"]["orderId"] == "o3"


def test_a_broken_http_tools_file_stops_serve_with_every_problem(tmp_path: Path) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps({"httpTools": {"x": {"endpoint": "nowhere", "method": "GRAB"}}}))
    result = CliRunner().invoke(app, ["serve", "--http-tools", str(file)])
    assert result.exit_code == 2
    assert "x.endpoint" in result.output and "x.method" in result.output


@pytest.mark.anyio
async def test_http_tools_go_into_a_langgraph_agent(base: str, recorder: Recorder) -> None:
    from langchain_core.messages import ToolMessage

    from adapters.http import HttpToolset
    from adapters.langgraph import build_agent
    from adapters.testing import ScriptedChatModel

    registry = ToolRegistry()
    toolset = HttpToolset.from_config(example_config(base))
    toolset.register_into(registry)
    args = {"userId": "u7", "orderId": "o1", "Authorization": "t"}
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "get_order", "args": args}]}, "It shipped."]
    )
    async with toolset:
        state = await build_agent(model, registry).ainvoke({"messages": [("user", "order?")]})
    tool_message = next(m for m in state["messages"] if isinstance(m, ToolMessage))
    assert str(tool_message.content).startswith("Order ID: o1\nStatus: shipped")
    assert recorder.last.raw_path == "/users/u7/orders/o1"
