"""Our server over streamable HTTP on 127.0.0.1: the SDK client in both protocol generations,
and hostile raw requests that must each get the right error while the server keeps serving."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from tests.support import served_registry

TOKEN = "test-token-3f9a"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MAX_BODY = 64 * 1024


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = build_server(served_registry.build(), name="served")
    with serving(http_app(server, token=TOKEN, max_body_bytes=MAX_BODY)) as url:
        yield url


@pytest.fixture
def raw(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, headers={**AUTH, **ACCEPT}, timeout=20) as client:
        yield client


def _client(base_url: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(20))
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode=mode)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_client_lists_calls_and_gets_errors(base_url: str, mode: str) -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with _client(base_url, mode) as client:
        expected = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.protocol_version == expected
        names = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("find_bin", {"code": "B-7"})
        failed = await client.call_tool("find_bin", {"code": "Z"})
        slow = await client.call_tool("slow", {"steps": 2}, progress_callback=on_progress)
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("nope", {})
    assert names == served_registry.registry.names()
    assert found.structured_content == {"code": "B-7", "zone": "north"}
    assert failed.is_error and "bin Z not found" in _text(failed)
    assert _text(slow) == "done after 2 steps"
    assert seen == [1, 2]
    assert unknown.value.code == types.INVALID_PARAMS


def test_health_answers_without_a_token(base_url: str) -> None:
    response = httpx.get(f"{base_url}/healthz", timeout=10)
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "server": "served", "tools": 4}


def test_malformed_json_is_a_parse_error(raw: httpx.Client) -> None:
    response = raw.post("/mcp", content=b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    assert _payload(response)["error"]["code"] == types.PARSE_ERROR
    _still_serving(raw)


def test_an_unknown_method_is_method_not_found(raw: httpx.Client) -> None:
    response = raw.post("/mcp", json=_request("tools/explode", {}))
    assert _payload(response)["error"]["code"] == types.METHOD_NOT_FOUND
    _still_serving(raw)


def test_an_unknown_tool_is_invalid_params_with_close_names(raw: httpx.Client) -> None:
    response = raw.post("/mcp", json=_request("tools/call", {"name": "echoo", "arguments": {}}))
    error = _payload(response)["error"]
    assert error["code"] == types.INVALID_PARAMS
    assert "echo" in error["message"]
    _still_serving(raw)


def test_invalid_arguments_are_an_error_result(raw: httpx.Client) -> None:
    body = _request("tools/call", {"name": "add", "arguments": {"a": 1, "b": -5}})
    result = _payload(raw.post("/mcp", json=body))["result"]
    assert result["isError"] is True
    assert "b" in result["content"][0]["text"]
    _still_serving(raw)


def test_an_oversized_request_is_refused_with_413(raw: httpx.Client) -> None:
    huge = _request("tools/call", {"name": "echo", "arguments": {"text": "x" * (MAX_BODY + 1)}})
    assert raw.post("/mcp", json=huge).status_code == 413
    _still_serving(raw)


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}]
)
def test_a_missing_or_wrong_token_is_401(
    base_url: str, raw: httpx.Client, headers: dict[str, str]
) -> None:
    response = httpx.post(
        f"{base_url}/mcp",
        json=_request("tools/list", {}),
        headers={**ACCEPT, **headers},
        timeout=10,
    )
    assert response.status_code == 401
    assert "Authorization: Bearer" in response.json()["error_description"]
    assert response.headers["www-authenticate"].startswith("Bearer")
    _still_serving(raw)


def test_a_foreign_host_is_refused(raw: httpx.Client) -> None:
    response = raw.post("/mcp", json=_request("tools/list", {}), headers={"Host": "evil.example"})
    assert response.status_code == 421
    _still_serving(raw)


def test_a_foreign_origin_is_refused(raw: httpx.Client) -> None:
    response = raw.post(
        "/mcp", json=_request("tools/list", {}), headers={"Origin": "http://evil.example"}
    )
    assert response.status_code == 403
    _still_serving(raw)


def _request(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def _payload(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a JSON or SSE response."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


def _still_serving(raw: httpx.Client) -> None:
    body = _request("tools/call", {"name": "echo", "arguments": {"text": "alive"}})
    result = _payload(raw.post("/mcp", json=body))["result"]
    assert result["content"][0]["text"] == "alive"


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))
