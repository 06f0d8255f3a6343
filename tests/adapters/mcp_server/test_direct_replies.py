"""Plain stateless requests answered in the request's task say exactly what the SDK's JSON
transport says: the same status, content type and JSON-RPC body, for answers and refusals, in
both protocol generations (the default app against one whose every request takes the SDK path).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import pytest
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from pydantic import Field

from adapters.mcp_server import build_server, http_app
from adapters.mcp_server._chain import needed
from adapters.mcp_server._envelopes import EnvelopeConnections
from adapters.mcp_server._transport_checks import HeaderView, TransportChecks
from tests.adapters.mcp_server.conftest import serving
from tests.support import served_registry
from toolkit import ToolContext, mcp_tool

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
}


@mcp_tool(read_only=True)
def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """Say which region a request is routed to.

    Args:
        region: Where the request goes (mirrored into the ``Mcp-Param-Region`` header).
    """
    return f"routed to {region}"


@mcp_tool(read_only=True)
def whoami(context: ToolContext) -> str:
    """Name the client that calls, as its request says.

    Args:
        context: The call's context.
    """
    return str(context.values.get("mcp_client"))


@pytest.fixture(scope="module")
def urls() -> Iterator[tuple[str, str]]:
    def app(**options: Any) -> Any:
        registry = served_registry.build()
        registry.register(route)
        registry.register(whoami)
        return http_app(build_server(registry, name="served"), **options)

    with serving(app()) as direct, serving(app(json_response=True)) as sdk:
        yield f"{direct}/mcp", f"{sdk}/mcp"


def _headers(version: str | None, method: str = "tools/call", name: str | None = "echo") -> Any:
    headers = [("accept", "application/json, text/event-stream")]
    headers.append(("content-type", "application/json"))
    if version is not None:
        headers.append(("mcp-protocol-version", version))
    if version == MODERN:
        headers.append(("mcp-method", method))
        if name is not None:
            headers.append(("mcp-name", name))
    return headers


def _body(method: str = "tools/call", version: str | None = LEGACY, **params: Any) -> bytes:
    if version == MODERN:
        params = {**params, "_meta": ENVELOPE}
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 3, "method": method}
    if params:
        message["params"] = params
    return json.dumps(message).encode()


def _same(urls: tuple[str, str], body: bytes, headers: Any) -> httpx.Response:
    direct, sdk = (httpx.post(url, content=body, headers=headers, timeout=20) for url in urls)
    assert direct.status_code == sdk.status_code, (direct.text, sdk.text)
    assert direct.headers.get("content-type") == sdk.headers.get("content-type")
    assert _content(direct) == _content(sdk)
    return direct


def _as(client_info: Any, **params: Any) -> bytes:
    """A 2026-07-28 request whose envelope names ``client_info`` (left out when ``None``)."""
    envelope = {key: value for key, value in ENVELOPE.items() if "clientInfo" not in key}
    if client_info is not None:
        envelope["io.modelcontextprotocol/clientInfo"] = client_info
    message = {"jsonrpc": "2.0", "id": 3, "method": "tools/call"}
    return json.dumps({**message, "params": {**params, "_meta": envelope}}).encode()


def _content(response: httpx.Response) -> Any:
    # Each call has its own reference ("(ref 1a2b3c-7)"); the rest must be the same.
    text = re.sub(r"\(ref [0-9a-f-]+\)", "(ref)", response.text)
    json_body = response.headers.get("content-type", "").startswith("application/json")
    return json.loads(text) if json_body and response.content else text


CALL: dict[str, Any] = {"name": "echo", "arguments": {"text": "hé"}}
NESTED: Any = "leaf"
for _ in range(200):
    NESTED = [NESTED]

CASES = {
    "a call": (_body(**CALL), _headers(LEGACY)),
    "a call without a version header": (_body(**CALL), _headers(None)),
    "a string id": (_body(**CALL).replace(b'"id": 3', b'"id": "x"'), _headers(LEGACY)),
    "an unknown tool": (_body(name="nope", arguments={}), _headers(LEGACY)),
    "invalid arguments": (_body(name="add", arguments={"a": "x"}), _headers(LEGACY)),
    "a listing": (_body("tools/list"), _headers(LEGACY, "tools/list", None)),
    "an unknown method": (_body("nope/nope"), _headers(LEGACY)),
    "malformed params": (_body(name=5), _headers(LEGACY)),
    "a notification": (
        b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        _headers(LEGACY),
    ),
    "an extra member": (_body(**CALL)[:-1] + b', "x": 1}', _headers(LEGACY)),
    "a wrong content type": (_body(**CALL), [("content-type", "text/plain")]),
    "no JSON accepted": (_body(**CALL), [("accept", "text/event-stream")]),
    "modern: a call": (_body(version=MODERN, **CALL), _headers(MODERN)),
    "modern: an unknown tool": (
        _body(version=MODERN, name="nope", arguments={}),
        _headers(MODERN, name="nope"),
    ),
    "modern: a listing": (
        _body("tools/list", version=MODERN),
        _headers(MODERN, "tools/list", None),
    ),
    "modern: no envelope": (_body(**CALL), _headers(MODERN)),
    "modern: a method header that disagrees": (
        _body(version=MODERN, **CALL),
        _headers(MODERN, method="tools/list"),
    ),
    "modern: a name header that disagrees": (
        _body(version=MODERN, **CALL),
        _headers(MODERN, name="add"),
    ),
    "modern: a routing header twice": (
        _body(version=MODERN, **CALL),
        [*_headers(MODERN), ("mcp-method", "tools/call")],
    ),
    "modern: an unsupported version": (
        _body(version=MODERN, **CALL).replace(MODERN.encode(), b"2099-01-01"),
        _headers("2099-01-01"),
    ),
    "modern: a mirrored argument": (
        _body(version=MODERN, name="route", arguments={"region": "eu"}),
        [*_headers(MODERN, name="route"), ("mcp-param-region", "eu")],
    ),
    "modern: a mirrored argument that disagrees": (
        _body(version=MODERN, name="route", arguments={"region": "eu"}),
        [*_headers(MODERN, name="route"), ("mcp-param-region", "us")],
    ),
    "modern: a mirrored argument left out": (
        _body(version=MODERN, name="route", arguments={"region": "eu"}),
        _headers(MODERN, name="route"),
    ),
    "modern: a header for an unmirrored argument": (
        _body(version=MODERN, name="echo", arguments={"text": "hi"}),
        [*_headers(MODERN), ("mcp-param-text", "hi")],
    ),
    "modern: a client info of the wrong shape": (
        _as("not an object", name="whoami", arguments={}),
        _headers(MODERN, name="whoami"),
    ),
    "modern: no client info": (
        _as(None, name="whoami", arguments={}),
        _headers(MODERN, name="whoami"),
    ),
    "a Host in capitals": (_body(**CALL), [*_headers(LEGACY), ("host", "LOCALHOST")]),
    "an Origin in capitals": (_body(**CALL), [*_headers(LEGACY), ("origin", "HTTP://LOCALHOST")]),
    # hostile input: each is refused (or answered) as the SDK's transport would
    "an Origin from elsewhere": (
        _body(version=MODERN, **CALL),
        [*_headers(MODERN), ("origin", "http://evil.example")],
    ),
    "a Host from elsewhere in capitals": (
        _body(version=MODERN, **CALL),
        [*_headers(MODERN), ("host", "EVIL.EXAMPLE")],
    ),
    "malformed JSON": (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/ca', _headers(LEGACY)),
    "a batch": (b"[" + _body(**CALL) + b", " + _body(**CALL) + b"]", _headers(LEGACY)),
    "deeply nested arguments": (
        _body(name="echo", arguments={"text": "x", "deep": NESTED}),
        _headers(LEGACY),
    ),
    "modern: deeply nested arguments": (
        _body(version=MODERN, name="echo", arguments={"text": "x", "deep": NESTED}),
        _headers(MODERN),
    ),
    "a body over the limit": (
        _body(name="echo", arguments={"text": "x" * (2 * 1024 * 1024)}),
        _headers(LEGACY),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_the_answer_is_the_sdk_transports(urls: tuple[str, str], case: str) -> None:
    body, headers = CASES[case]
    _same(urls, body, headers)


def test_a_call_is_answered_with_its_result(urls: tuple[str, str]) -> None:
    for version in (LEGACY, MODERN):
        response = _same(urls, _body(version=version, **CALL), _headers(version))
        assert response.json()["result"]["content"][0]["text"] == "hé"


def test_a_foreign_host_is_refused_before_any_call(urls: tuple[str, str]) -> None:
    headers = [*_headers(LEGACY), ("host", "evil.example")]
    assert _same(urls, _body(**CALL), headers).status_code == 421


def test_a_plain_call_needs_no_session_of_its_own(
    urls: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="mcp.server.streamable_http_manager")
    for url in urls:
        response = httpx.post(url, content=_body(**CALL), headers=_headers(LEGACY), timeout=20)
        assert response.json()["result"]["content"][0]["text"] == "hé"
    sessions = [r for r in caplog.records if "Creating new transport" in r.getMessage()]
    assert len(sessions) == 1  # the SDK path's call made one; the default app's none


def test_each_envelope_names_its_own_client(urls: tuple[str, str]) -> None:
    # The envelope's models are made once per distinct envelope: each request still gets its own.
    for name in ("first", "second", "first", None):
        client = None if name is None else {"name": name, "version": "1"}
        body = _as(client, name="whoami", arguments={})
        response = _same(urls, body, _headers(MODERN, name="whoami"))
        assert response.json()["result"]["content"][0]["text"] == str(name)


def test_an_application_middleware_sees_every_direct_request() -> None:
    seen: list[tuple[str, str]] = []

    async def watch(ctx: Any, call_next: Any) -> Any:
        seen.append((ctx.method, ctx.protocol_version))
        return await call_next(ctx)

    server = build_server(served_registry.build(), name="watched")
    server.middleware.append(watch)
    with serving(http_app(server)) as url:
        for version in (LEGACY, MODERN):
            body, headers = _body(version=version, **CALL), _headers(version)
            response = httpx.post(f"{url}/mcp", content=body, headers=headers, timeout=20)
            assert response.json()["result"]["content"][0]["text"] == "hé"
    assert seen == [("tools/call", LEGACY), ("tools/call", MODERN)]


def test_only_layers_with_nothing_to_do_are_left_out() -> None:
    server = build_server(served_registry.build(), name="layers")
    spans, changes, state, tasks = server.middleware
    call = {"name": "echo", "arguments": {}}
    assert needed(server.middleware, "tools/call", MODERN, call) == [state]
    assert needed(server.middleware, "tools/call", LEGACY, call) == [state, tasks]
    assert needed(server.middleware, "tools/list", LEGACY, {}) == [state]
    # a request carrying a caller's trace context keeps the span that hands it on
    traced = {**call, "_meta": {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}}
    assert needed(server.middleware, "tools/call", MODERN, traced) == [spans, state]
    assert changes in needed(server.middleware, "notifications/initialized", LEGACY, None)


@pytest.mark.anyio
async def test_header_verdicts_are_the_sdks_and_stay_bounded() -> None:
    settings = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=["localhost:*"]
    )
    checks = TransportChecks(TransportSecurityMiddleware(settings))

    def headers(host: str, content_type: str = "application/json") -> HeaderView:
        raw = [("host", host), ("content-type", content_type), ("accept", "application/json")]
        return HeaderView([(name.encode(), value.encode()) for name, value in raw])

    for _ in range(2):  # the second time from the kept verdicts
        assert await checks.passed(headers("localhost:8000"))
        assert not await checks.passed(headers("evil.example:8000"))
        assert not await checks.passed(headers("localhost:8000", "text/plain"))
    for i in range(1000):  # a flood of made-up hosts
        assert not await checks.passed(headers(f"host-{i}.example"))
    assert len(checks._verdicts) <= 256
    assert await checks.passed(headers("localhost:8000"))
    kept = len(checks._verdicts)  # a long header is checked every time, not kept
    for _ in range(2):
        assert not await checks.passed(headers("localhost:8000", "text/" + "x" * 5000))
    assert len(checks._verdicts) == kept


def test_envelopes_kept_stay_few_and_an_oversized_one_is_not_kept() -> None:
    connections = EnvelopeConnections()
    for i in range(1000):  # a flood of made-up clients
        connection = connections.of(MODERN, {"name": f"client-{i}", "version": "1"}, {})
        assert connection.client_params is not None
        assert connection.client_params.client_info.name == f"client-{i}"
    assert len(connections._known) <= 256
    huge = {"name": "big", "version": "1", "title": "x" * 10_000}
    kept = len(connections._known)
    first, second = connections.of(MODERN, huge, {}), connections.of(MODERN, huge, {})
    assert first is not second and len(connections._known) == kept
    assert second.client_params is not None and second.client_params.client_info.name == "big"
    # each request's connection keeps its own state, even for one envelope
    one, two = (connections.of(MODERN, {"name": "same", "version": "1"}, {}) for _ in range(2))
    one.state["k"] = 1
    assert two.state == {}
