"""``toolkit serve`` and ``create_app`` go through the source table: a broken file stops them
before anything starts, and what they serve is what the table opens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from adapters.mcp_server import ServeSettings, create_app, serve_command
from tests.support.orders_service import example_config, serving_orders
from tests.support.serving import serving

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


TOOLS = "tests.toolkit.tools_for_tests"


def write(path: Path, data: dict[str, Any]) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def names_served(base: str) -> set[str]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx.post(f"{base}/mcp", json=body, headers=HEADERS, timeout=30)
    text = response.text
    if response.headers["content-type"].startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return {tool["name"] for tool in json.loads(text)["result"]["tools"]}


def test_create_app_refuses_a_broken_config_before_it_serves(tmp_path: Path) -> None:
    config = write(tmp_path / "mcp.json", {"mcpServers": {"broken": {"url": 7}}})
    with pytest.raises(ValueError, match="'broken'"):
        create_app(ServeSettings(target=None, config=config, telemetry=False))


def test_create_app_serves_the_target_and_an_http_tools_file(tmp_path: Path) -> None:
    with serving_orders() as (orders, _recorder):
        http_file = write(tmp_path / "http.json", example_config(orders))
        settings = ServeSettings(
            target="tests.toolkit.tools_for_tests", http_tools=http_file, telemetry=False
        )
        with serving(create_app(settings)) as base:
            names = names_served(base)
    assert {"add", "find_player", "get_order"} <= names


def test_serve_checks_every_file_once_before_starting_workers(tmp_path: Path) -> None:
    bad_http = write(tmp_path / "http.json", {"httpTools": {"t": {"endpoint": "nowhere"}}})
    with pytest.raises(ValueError, match=r"t\.endpoint"):
        serve_command(ServeSettings(transport="http", workers=2, http_tools=bad_http))
    bad_config = write(tmp_path / "mcp.json", {"mcpServers": {"broken": {"url": 7}}})
    with pytest.raises(ValueError, match="'broken'"):
        serve_command(ServeSettings(target=TOOLS, transport="http", workers=2, config=bad_config))


def test_serve_in_one_process_refuses_a_broken_file_before_it_starts(tmp_path: Path) -> None:
    bad_config = write(tmp_path / "mcp.json", {"mcpServers": {"broken": {"url": 7}}})
    with pytest.raises(ValueError, match="'broken'"):
        serve_command(ServeSettings(target=TOOLS, config=bad_config))
