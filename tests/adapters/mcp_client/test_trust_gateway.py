"""The gateway under ``--callers`` (``toolkit serve --config``, here its app factory) checks a
remote server's tools against the lock beside its config: a tool the server poisons after it
was pinned leaves every caller's ``tools/list``, and the server never hears a call to it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.mcp_server import ServeSettings, create_app
from tests.adapters.mcp_client.conftest import stdio
from tests.support.poisoning import BASE, poisoned_listing
from tests.support.serving import serving

TOKEN = "ops-token-0123456789abcdef"
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "Authorization": f"Bearer {TOKEN}",
}


def _rpc(base: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = httpx.post(f"{base}/mcp", json=body, headers=HEADERS, timeout=30)
    text = response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return dict(json.loads(text))


def _names(base: str) -> set[str]:
    return {t["name"] for t in _rpc(base, "tools/list", {})["result"]["tools"]}


def _until(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not done():
        assert time.monotonic() < deadline, "the gateway did not follow the change in 30 s"
        time.sleep(0.1)


def test_the_gateway_quarantines_a_poisoned_tool_for_every_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPS_TOKEN", TOKEN)
    callers = tmp_path / "callers.json"
    callers.write_text(json.dumps({"callers": {"ops": {"token": "${OPS_TOKEN}", "tenant": "t"}}}))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": list(BASE.values())}))
    config = tmp_path / "mcp.json"
    server = stdio("shifty_server.py", str(tools), trust="first-use")
    config.write_text(json.dumps({"mcpServers": {"s": server}}))
    settings = ServeSettings(target=None, config=str(config), callers=str(callers), telemetry=False)
    with serving(create_app(settings)) as base:
        assert {f"s_{name}" for name in BASE} <= _names(base)
        assert (tmp_path / "mcp.lock.json").exists()  # pinned beside the config at first use
        tools.write_text(json.dumps({"tools": poisoned_listing()}))
        _rpc(base, "tools/call", {"name": "s_announce", "arguments": {}})
        _until(lambda: "s_search" not in _names(base))
        listed = _names(base)
        called = _rpc(base, "tools/call", {"name": "s_search", "arguments": {"query": "x"}})
    assert listed == {"s_announce", "s_crash"}
    # Gone from the caller's tools, a call by name is refused like any tool it cannot see.
    assert "error" in called or called["result"]["isError"] is True
    assert not tools.with_suffix(".calls").exists()  # the server never heard of the call
