"""What the gateway relays answers to the caller (issue 33, items 1, 5, 11, 12).

``toolkit serve tests.support.scoped_gateway:registry --config ... --callers ...`` over stateful
HTTP on 127.0.0.1, in front of a remote MCP server (``relay_server.py`` on stdio), read by the
SDK client as two callers: a guest who sees none of the remote server's tools, and an admin.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.support.scoped_gateway import GATEWAY_SECRET

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed"),
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

ROOT = Path(__file__).resolve().parents[3]
RELAY = ROOT / "tests/support/mcp_servers/relay_server.py"
ADMIN = "admin-token-0123456789abcdef"
GUEST = "guest-token-0123456789abcdef"


@dataclass
class Gateway:
    url: str
    stderr: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    tmp = tmp_path_factory.mktemp("gateway")
    relay = {
        "command": sys.executable,
        "args": [str(RELAY)],
        "env": {"RELAY_SECRET": GATEWAY_SECRET},
    }
    (tmp / "mcp.json").write_text(json.dumps({"mcpServers": {"relay": relay}}))
    callers = {
        "admin": {"token": "${ADMIN_TOKEN}", "scopes": ["relay"]},
        "guest": {"token": "${GUEST_TOKEN}", "scopes": ["read"]},
    }
    (tmp / "callers.json").write_text(json.dumps({"callers": callers}))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ADMIN_TOKEN": ADMIN, "GUEST_TOKEN": GUEST}
    args = [
        *("-m", "adapters.mcp_server", "tests.support.scoped_gateway:registry"),
        *("--config", str(tmp / "mcp.json"), "--callers", str(tmp / "callers.json")),
        *("--transport", "http", "--stateful", "--port", str(port)),
    ]
    stderr = tmp / "stderr.txt"
    with stderr.open("wb") as err:
        process = subprocess.Popen([sys.executable, *args], env=env, cwd=ROOT, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx2.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"the gateway did not start: {stderr.read_text()}")
            time.sleep(0.1)
        yield Gateway(url, stderr)
    finally:
        process.terminate()
        process.wait(timeout=20)


def _client(gateway: Gateway, token: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    transport = streamable_http_client(f"{gateway.url}/mcp", http_client=http)
    return Client(transport, mode="legacy", **kwargs)


async def test_a_caller_who_sees_none_of_a_servers_tools_sees_none_of_its_catalog(
    gateway: Gateway,
) -> None:
    async with _client(gateway, GUEST) as guest:
        tools = [t.name for t in (await guest.list_tools()).tools]
        resources = [str(r.uri) for r in (await guest.list_resources()).resources]
        prompts = [p.name for p in (await guest.list_prompts()).prompts]
        with pytest.raises(MCPError) as read:
            await guest.read_resource("relay+notes://first")
        with pytest.raises(MCPError) as got:
            await guest.get_prompt("relay_brief", {"topic": "x"})
    assert tools == ["ping"]
    assert resources == [] and prompts == []
    assert "No resource has the URI 'relay+notes://first'" in str(read.value)
    assert "No prompt is called 'relay_brief'. Prompts: none." in str(got.value)


async def test_titles_descriptions_subscriptions_and_links_arrive_whole(gateway: Gateway) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with _client(gateway, ADMIN, message_handler=on_message) as admin:
        resources = {str(r.uri): r for r in (await admin.list_resources()).resources}
        prompts = {p.name: p for p in (await admin.list_prompts()).prompts}
        linked = await admin.call_tool("relay_link", {})
        [link] = [b for b in linked.content if isinstance(b, types.ResourceLink)]
        read = await admin.read_resource(str(link.uri))
        await admin.subscribe_resource("relay+notes://first")
        told = await admin.call_tool("relay_touch", {"uri": "notes://first"})
        with anyio.fail_after(20):
            while not updates:
                await anyio.sleep(0.05)
        await admin.unsubscribe_resource("relay+notes://first")  # the server lets go too
        untold = await admin.call_tool("relay_touch", {"uri": "notes://first"})
    assert resources["relay+notes://first"].title == "First note"
    brief = prompts["relay_brief"]
    assert brief.title == "Brief me"
    assert [(a.name, a.description) for a in brief.arguments or []] == [
        ("topic", "What the brief is about")
    ]
    assert str(link.uri) == "relay+notes://first"
    assert isinstance(read.contents[0], types.TextResourceContents)
    assert read.contents[0].text == "first note"
    assert isinstance(told.content[0], types.TextContent)
    assert told.content[0].text == "told"
    assert isinstance(untold.content[0], types.TextContent)
    assert untold.content[0].text == "nobody subscribed"
    assert updates == ["relay+notes://first"]


async def test_background_logs_go_to_callers_who_see_the_server_masked_bounded_and_leveled(
    gateway: Gateway,
) -> None:
    heard: dict[str, list[types.LoggingMessageNotificationParams]] = {"admin": [], "guest": []}

    def listener(who: str) -> Any:
        async def on_log(params: types.LoggingMessageNotificationParams) -> None:
            if params.logger == "remote:relay":
                heard[who].append(params)

        return on_log

    sent = 600
    async with (
        _client(gateway, GUEST, logging_callback=listener("guest")) as guest,
        _client(gateway, ADMIN, logging_callback=listener("admin")) as admin,
    ):
        await guest.list_tools()
        await admin.call_tool("relay_chatter", {"count": sent})
        with anyio.fail_after(60):
            while "dropped" not in gateway.stderr.read_text() or len(heard["admin"]) < 4:
                await anyio.sleep(0.1)
        await anyio.sleep(1.0)  # anything meant for the guest would have arrived by now
    texts = [str(p.data) for p in heard["admin"]]
    assert heard["guest"] == []
    assert 4 <= len(texts) < sent  # the excess was dropped, and the gateway said so
    assert not any("hunter2" in t or GATEWAY_SECRET in t for t in texts), texts[:4]
    assert "***" in texts[0]
    assert {p.level for p in heard["admin"][:4]} == {"notice", "alert", "emergency", "info"}


async def test_a_relayed_subscription_survives_a_restarted_remote_server(gateway: Gateway) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    async with _client(gateway, ADMIN, message_handler=on_message) as admin:
        await admin.subscribe_resource("relay+notes://first")
        crashed = await admin.call_tool("relay_crash", {})
        told = ""
        with anyio.fail_after(60):  # the fresh server is subscribed to again, soon after
            while told != "told":
                result = await admin.call_tool("relay_touch", {"uri": "notes://first"})
                told = (
                    result.content[0].text
                    if isinstance(result.content[0], types.TextContent)
                    else ""
                )
                await anyio.sleep(0.1)
            while not updates:
                await anyio.sleep(0.05)
        await admin.unsubscribe_resource("relay+notes://first")
    assert crashed.is_error
    assert updates[-1] == "relay+notes://first"
