"""A client that loses the SSE stream of a running call resumes it with ``Last-Event-ID`` and
gets what it missed (SEP-1699); the event store behind it is bounded in count and age."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest

from adapters.mcp_server import BoundedEventStore, SessionChannel, build_server, http_app
from tests.support import served_registry
from tests.support.serving import serving
from tests.support.sse import sse_events
from toolkit import ToolContext, ToolRegistry, mcp_tool

VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = build_server(served_registry.build(), name="served")
    with serving(http_app(server, stateless=False)) as url:
        yield url


def _session(client: httpx.Client, version: str = VERSION) -> dict[str, str]:
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "resume-test", "version": "1"},
        },
    }
    answer = client.post("/mcp", json=hello, headers={"Accept": ACCEPT})
    headers = {
        "Accept": ACCEPT,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": version,
    }
    client.post(
        "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    return headers


def test_a_lost_stream_resumes_with_the_missed_progress_and_the_result(base: str) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {"steps": 6}, "_meta": {"progressToken": "p"}},
    }
    with httpx.Client(base_url=base, timeout=20) as client:
        headers = _session(client)
        seen: list[dict[str, str]] = []
        with client.stream("POST", "/mcp", json=call, headers=headers) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for event in sse_events(response.iter_lines()):
                seen.append(event)
                if len(seen) == 2:  # the priming event and the first progress
                    break  # the connection drops here, mid-call
        priming, first = seen
        assert priming["data"] == "" and priming["id"] and int(priming["retry"]) > 0
        assert json.loads(first["data"])["params"]["progress"] == 1
        resumed: list[dict[str, Any]] = []
        with client.stream(
            "GET",
            "/mcp",
            headers={**headers, "Accept": "text/event-stream", "Last-Event-ID": first["id"]},
        ) as again:
            assert again.status_code == 200
            for event in sse_events(again.iter_lines()):
                if event.get("data"):
                    resumed.append(json.loads(event["data"]))
                    if resumed[-1].get("id") == 7:
                        break
    progress = [
        m["params"]["progress"] for m in resumed if m.get("method") == "notifications/progress"
    ]
    assert progress == [2, 3, 4, 5, 6]  # nothing lost, nothing twice
    assert resumed[-1]["result"]["content"][0]["text"] == "done after 6 steps"


def test_stateless_servers_keep_no_events() -> None:
    # Without a session there is nothing to resume: no priming event, no store to grow.
    server = build_server(served_registry.build(), name="served")
    with serving(http_app(server)) as url:
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "slow", "arguments": {"steps": 1}, "_meta": {"progressToken": 1}},
        }
        headers = {"Accept": ACCEPT, "mcp-protocol-version": VERSION}
        response = httpx.post(f"{url}/mcp", json=call, headers=headers, timeout=20)
    events = list(sse_events(iter(response.text.splitlines())))
    assert all("id" not in e for e in events)


@pytest.mark.anyio
async def test_the_store_keeps_a_bounded_number_of_events() -> None:
    store = BoundedEventStore(max_events=3)
    ids = [await store.store_event("s", None) for _ in range(5)]
    assert store.size == 3
    replayed: list[Any] = []

    async def collect(message: Any) -> None:
        replayed.append(message)

    assert await store.replay_events_after(ids[0], collect) is None  # gone: start over
    assert await store.replay_events_after(ids[3], collect) == "s"


@pytest.mark.anyio
async def test_old_events_expire() -> None:
    store = BoundedEventStore(max_age=0.05)
    first = await store.store_event("s", None)
    await anyio.sleep(0.1)
    await store.store_event("t", None)
    assert store.size == 1

    async def collect(message: Any) -> None:
        raise AssertionError("nothing to replay")

    assert await store.replay_events_after(first, collect) is None


@mcp_tool
async def hand_back(context: ToolContext) -> str:
    """Close the stream at once, then finish a moment later."""
    assert isinstance(context.client, SessionChannel)
    closed = await context.client.close_stream()
    await anyio.sleep(0.2)
    return f"stream closed early: {closed}"


def _hand_back_server() -> Any:
    registry = ToolRegistry()
    registry.register(hand_back)
    return http_app(build_server(registry, name="poll"), stateless=False)


def test_a_tool_hands_its_stream_back_and_the_client_polls_for_the_result() -> None:
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "hand_back"}}
    with serving(_hand_back_server()) as url, httpx.Client(base_url=url, timeout=20) as client:
        headers = _session(client)
        with client.stream("POST", "/mcp", json=call, headers=headers) as response:
            lines = list(response.iter_lines())  # ends early: the tool closed it
        events = list(sse_events(iter(lines)))
        assert [e["data"] for e in events] == [""], "only the priming event before the close"
        result: dict[str, Any] = {}
        with client.stream(
            "GET",
            "/mcp",
            headers={**headers, "Accept": "text/event-stream", "Last-Event-ID": events[0]["id"]},
        ) as again:
            for event in sse_events(again.iter_lines()):
                if event.get("data") and json.loads(event["data"]).get("id") == 3:
                    result = json.loads(event["data"])
                    break
    assert result["result"]["content"][0]["text"] == "stream closed early: True"


def test_an_older_client_keeps_its_stream() -> None:
    # 2025-03-26 clients cannot resume, so closing would lose the result: the stream stays open.
    call = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "hand_back"}}
    with serving(_hand_back_server()) as url, httpx.Client(base_url=url, timeout=20) as client:
        headers = _session(client, "2025-03-26")
        answer = client.post("/mcp", json=call, headers=headers)
    data = [e["data"] for e in sse_events(iter(answer.text.splitlines())) if e.get("data")]
    assert json.loads(data[-1])["result"]["content"][0]["text"] == "stream closed early: False"
