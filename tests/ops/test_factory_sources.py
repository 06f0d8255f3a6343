"""The app factory serves what ``toolkit serve`` serves in one process: remote MCP servers and
HTTP tools from files, destructive-tool choices and callers, so ``--workers`` drops nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.mcp_server import ServeSettings, create_app
from tests.support.orders_service import serving_orders
from tests.support.serving import serving

ROOT = Path(__file__).resolve().parents[2]
ECHO = ROOT / "tests/support/mcp_servers/echo_server.py"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TOKEN = "ops-token-0123456789abcdef"


def _rpc(base: str, method: str, params: dict[str, Any], token: str | None) -> httpx.Response:
    headers = dict(HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=30)


def _result(response: httpx.Response) -> dict[str, Any]:
    text = response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return dict(json.loads(text)["result"])


def test_remote_servers_http_tools_and_callers_reach_every_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPS_TOKEN", TOKEN)
    callers = tmp_path / "callers.json"
    callers.write_text(json.dumps({"callers": {"ops": {"token": "${OPS_TOKEN}", "tenant": "t"}}}))
    with serving_orders() as (orders, _recorder):
        config = tmp_path / "mcp.json"
        config.write_text(
            json.dumps(
                {
                    "mcpServers": {"echo": {"command": sys.executable, "args": [str(ECHO)]}},
                    "httpTools": {
                        "get_order": {
                            "endpoint": orders + "/users/{userId}/orders/{orderId}",
                            "parameters": [
                                {"name": "userId", "position": "path", "required": True},
                                {"name": "orderId", "position": "path", "required": True},
                            ],
                        }
                    },
                }
            )
        )
        # No target: the app's registry holds the remote and HTTP tools alone.
        env = ServeSettings(
            target=None, config=str(config), callers=str(callers), telemetry=False
        ).to_env()
        settings = ServeSettings.from_env(env)
        assert settings.config == str(config) and settings.callers == str(callers)
        with serving(create_app(settings)) as base:
            refused = _rpc(base, "tools/list", {}, token=None)
            names = {t["name"] for t in _result(_rpc(base, "tools/list", {}, TOKEN))["tools"]}
            echoed = _result(
                _rpc(base, "tools/call", {"name": "echo_echo", "arguments": {"text": "hi"}}, TOKEN)
            )
            order = _result(
                _rpc(
                    base,
                    "tools/call",
                    {"name": "get_order", "arguments": {"userId": "u1", "orderId": "o7"}},
                    TOKEN,
                )
            )
    assert refused.status_code == 401  # every method needs a caller's token, before the SDK
    assert "callers file" in refused.json()["error_description"]
    assert {"echo_echo", "get_order"} <= names  # the remote server's and the HTTP tool
    assert echoed["content"][0]["text"] == "hi"
    assert not order.get("isError") and "o7" in order["content"][0]["text"]


def test_a_config_or_http_tools_file_alone_is_enough_to_serve() -> None:
    settings = ServeSettings.from_env({"TOOLKIT_HTTP_TOOLS": "tools.yaml"})
    assert settings.target is None and settings.http_tools == "tools.yaml"
    with pytest.raises(ValueError, match="TOOLKIT_CONFIG / TOOLKIT_HTTP_TOOLS"):
        ServeSettings.from_env({})
    destructive = ServeSettings.from_env(
        {"TOOLKIT_TARGET": "m", "TOOLKIT_ALLOW_DESTRUCTIVE": "a, b"}
    )
    assert destructive.allow_destructive == ("a", "b")
