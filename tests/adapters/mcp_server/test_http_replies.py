"""Stateless HTTP answers a plain request with one JSON body and streams only what needs it:
progress, log opt-ins and anything that is not one JSON-RPC request; explicit choices win."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from tests.support import served_registry

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
SSE = "text/event-stream"


def _call(name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    ).encode()


def _messages(response: httpx.Response) -> list[dict[str, Any]]:
    if response.headers["content-type"].startswith(SSE):
        lines = response.text.splitlines()
        return [json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:]]
    return [response.json()]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = build_server(served_registry.build(), name="served")
    with serving(http_app(server)) as base:
        yield f"{base}/mcp"


def test_a_plain_call_is_answered_with_one_json_body(url: str) -> None:
    response = httpx.post(url, content=_call("echo", {"text": "hi"}), headers=HEADERS, timeout=20)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["result"]["content"][0]["text"] == "hi"


def test_a_call_asking_for_progress_is_streamed_with_its_progress(url: str) -> None:
    body = _call("slow", {"steps": 2}, meta={"progressToken": "p1"})
    response = httpx.post(url, content=body, headers=HEADERS, timeout=20)
    assert response.headers["content-type"].startswith(SSE)
    messages = _messages(response)
    progress = [
        m["params"]["progress"] for m in messages if m.get("method") == "notifications/progress"
    ]
    assert progress == [1, 2]
    assert messages[-1]["result"]["content"][0]["text"] == "done after 2 steps"


def test_a_log_opt_in_is_streamed(url: str) -> None:
    body = _call("echo", {"text": "hi"}, meta={"io.modelcontextprotocol/logLevel": "info"})
    response = httpx.post(url, content=body, headers=HEADERS, timeout=20)
    assert response.headers["content-type"].startswith(SSE)
    assert _messages(response)[-1]["result"]["content"][0]["text"] == "hi"


def test_a_streaming_key_inside_an_argument_is_still_answered(url: str) -> None:
    # The router scans bytes rather than parsing twice: a mention inside a value errs to SSE.
    response = httpx.post(
        url, content=_call("echo", {"text": '"progressToken"'}), headers=HEADERS, timeout=20
    )
    assert response.status_code == 200
    assert _messages(response)[-1]["result"]["content"][0]["text"] == '"progressToken"'


@pytest.mark.parametrize(
    "body",
    [b"[" + _call("echo", {"text": "hi"}) + b"]", b'{"jsonrpc": "2.0", "id": 1, "method": '],
    ids=["batch", "malformed"],
)
def test_what_is_not_one_request_gets_the_sdk_error(url: str, body: bytes) -> None:
    response = httpx.post(url, content=body, headers=HEADERS, timeout=20)
    assert response.status_code == 400
    assert "error" in _messages(response)[-1]
    after = httpx.post(url, content=_call("echo", {"text": "ok"}), headers=HEADERS, timeout=20)
    assert after.json()["result"]["content"][0]["text"] == "ok"


@pytest.mark.parametrize("json_response", [True, False])
def test_an_explicit_choice_applies_to_every_request(json_response: bool) -> None:
    server = build_server(served_registry.build(), name="served")
    with serving(http_app(server, json_response=json_response)) as base:
        response = httpx.post(
            f"{base}/mcp", content=_call("echo", {"text": "hi"}), headers=HEADERS, timeout=20
        )
    kind = response.headers["content-type"]
    assert kind.startswith("application/json") if json_response else kind.startswith(SSE)
    assert _messages(response)[-1]["result"]["content"][0]["text"] == "hi"
