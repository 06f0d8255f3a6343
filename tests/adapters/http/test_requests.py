"""HTTP tools against a real uvicorn service: what the server received, and what came back."""

from __future__ import annotations

import json
import logging
from typing import Any, ClassVar

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from adapters.http import HttpToolset
from adapters.network import NetworkPolicy, NetworkPolicyError
from tests.support.orders_service import Recorder, example_config, one_tool, serving
from toolkit import CallOptions, ErrorCode, ToolContext, ToolRegistry

pytestmark = pytest.mark.anyio


def registry_for(config: dict[str, Any]) -> tuple[ToolRegistry, HttpToolset]:
    toolset = HttpToolset.from_config(config)
    registry = ToolRegistry()
    toolset.register_into(registry)
    return registry, toolset


async def test_stored_config_example_calls_the_service_and_renders_its_template(
    base: str, recorder: Recorder
) -> None:
    registry, toolset = registry_for(example_config(base))
    async with toolset:
        result = await registry.call(
            "get_order", {"userId": "u 1", "orderId": "o7", "Authorization": "Bearer abc"}
        )
    assert not result.is_error, result.content
    assert result.content == (
        "Order ID: o7\nStatus: shipped\nItems:\n- widget: $2.5\n- gadget: $10"
    )
    assert result.structured["items"][0] == {"name": "widget", "price": 2.5}
    got = recorder.last
    assert got.method == "GET"
    assert got.raw_path == "/users/u%201/orders/o7"
    assert got.query == "includeDetails=false"  # a GET's body parameters go in the query
    assert got.headers["authorization"] == "Bearer abc"
    assert got.body == b""


async def test_a_path_value_is_encoded_as_one_segment(base: str, recorder: Recorder) -> None:
    registry, toolset = registry_for(example_config(base))
    async with toolset:
        await registry.call(
            "get_order", {"userId": "a b/c", "orderId": "o?#", "Authorization": "t"}
        )
    assert recorder.last.raw_path == "/users/a%20b%2Fc/orders/o%3F%23"


async def test_post_sends_json_body_query_and_header_parameters(
    base: str, recorder: Recorder
) -> None:
    config = one_tool(
        base,
        endpoint="/orders",
        method="post",
        parameters=[
            {"name": "item", "parameter_type": "string", "required": True},
            {"name": "quantity", "parameter_type": "INTEGER", "default_value": 3},
            {"name": "trace", "parameter_type": "Array", "position": "query"},
            {"name": "X-Tenant", "position": "header", "value_from": "context.tenant"},
        ],
    )
    registry, toolset = registry_for(config)
    spec = registry.get("t").spec
    assert "X-Tenant" not in spec.input_schema["properties"]  # bound to the context, hidden
    async with toolset:
        result = await registry.call(
            "t", {"item": "pen", "trace": ["a", "b c"]}, ToolContext(values={"tenant": "acme"})
        )
    assert not result.is_error, result.content
    assert result.structured == {"created": "pen", "quantity": 3, "tenant": "acme"}
    got = recorder.last
    assert (got.method, got.raw_path, got.query) == ("POST", "/orders", "trace=a&trace=b+c")
    assert got.json() == {"item": "pen", "quantity": 3}
    assert got.headers["x-tenant"] == "acme"
    assert got.headers["content-type"] == "application/json"


async def test_context_bound_parameter_cannot_be_set_by_the_model(base: str) -> None:
    config = one_tool(
        base,
        endpoint="/orders",
        method="POST",
        parameters=[
            {"name": "item", "required": True},
            {"name": "X-Tenant", "position": "header", "value_from": "context.tenant"},
        ],
    )
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {"item": "pen", "X-Tenant": "evil"})
    assert result.code is ErrorCode.INVALID_PARAMS
    assert "X-Tenant" in result.content


async def test_arguments_are_validated_with_the_registry_messages(base: str) -> None:
    registry, toolset = registry_for(example_config(base))
    async with toolset:
        wrong = await registry.call(
            "get_order",
            {"userId": "u1", "orderID": "o7", "Authorization": "t", "includeDetails": "yes"},
        )
    assert wrong.code is ErrorCode.INVALID_PARAMS
    assert "did you mean `orderId`" in wrong.content
    assert "includeDetails" in wrong.content and "boolean" in wrong.content
    assert "orderId" in wrong.content and "required" in wrong.content


@pytest.mark.parametrize("value", ["..", ".", "a/../b", "../etc"])
async def test_path_values_that_leave_their_segment_are_refused(
    base: str, recorder: Recorder, value: str
) -> None:
    registry, toolset = registry_for(example_config(base))
    async with toolset:
        result = await registry.call(
            "get_order", {"userId": value, "orderId": "o1", "Authorization": "t"}
        )
    assert result.code is ErrorCode.INVALID_PARAMS
    assert "path" in result.content
    assert recorder.requests == []


@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "x" * 9000])
async def test_bad_header_values_are_refused_before_sending(
    base: str, recorder: Recorder, value: str
) -> None:
    registry, toolset = registry_for(example_config(base))
    async with toolset:
        result = await registry.call(
            "get_order", {"userId": "u", "orderId": "o1", "Authorization": value}
        )
    assert result.code is ErrorCode.INVALID_PARAMS
    assert "Authorization" in result.content
    assert recorder.requests == []


@pytest.mark.parametrize(
    ("status", "code", "words"),
    [
        (401, ErrorCode.AUTH_FAILED, "credentials"),
        (403, ErrorCode.AUTH_FAILED, "credentials"),
        (404, ErrorCode.EXECUTION_ERROR, "Nothing exists"),
        (409, ErrorCode.EXECUTION_ERROR, "conflicts"),
        (422, ErrorCode.INVALID_PARAMS, "rejected"),
        (429, ErrorCode.EXECUTION_ERROR, "Too many requests; try again after 1 s"),
        (500, ErrorCode.EXECUTION_ERROR, "service failed"),
    ],
)
async def test_error_statuses_are_told_apart_with_the_servers_text(
    base: str, status: int, code: ErrorCode, words: str
) -> None:
    config = one_tool(
        base,
        endpoint="/status/{code}",
        parameters=[
            {"name": "code", "parameter_type": "Integer", "position": "path", "required": True},
            {"name": "retry_after", "position": "query", "default_value": "1"},
        ],
    )
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {"code": status})
    assert result.is_error and result.code is code
    assert f"HTTP {status}" in result.content
    assert f"status {status} as asked" in result.content
    assert words in result.content


async def test_idempotent_requests_are_retried_on_503(base: str, recorder: Recorder) -> None:
    config = one_tool(
        base,
        endpoint="/flaky",
        retry_count=2,
        parameters=[{"name": "fail", "parameter_type": "integer", "position": "query"}],
    )
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {"fail": 2})
    assert not result.is_error, result.content
    assert len(recorder.requests) == 3


async def test_retry_after_is_honoured(base: str, recorder: Recorder) -> None:
    config = one_tool(
        base,
        endpoint="/status/429",
        retry_count=1,
        parameters=[{"name": "retry_after", "position": "query", "default_value": "1"}],
    )
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {})
    assert result.code is ErrorCode.EXECUTION_ERROR
    first, second = recorder.requests
    assert second.query == first.query == "retry_after=1"
    assert result.record is not None and result.record.duration_ms >= 950


async def test_post_is_never_resent_unless_the_config_says_so(
    base: str, recorder: Recorder
) -> None:
    config = one_tool(base, endpoint="/flaky-post", method="POST", retry_count=3)
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {})
    assert result.code is ErrorCode.UNREACHABLE
    assert len(recorder.requests) == 1
    recorder.requests.clear()
    config["t"]["retry_non_idempotent"] = True
    config["t"]["endpoint"] = config["t"]["endpoint"]
    registry, toolset = registry_for(config)
    async with toolset:
        await registry.call("t", {})
    assert len(recorder.requests) == 4


async def test_a_slow_service_is_a_timeout(base: str) -> None:
    config = one_tool(base, endpoint="/slow", timeout_seconds=0.2)
    registry, toolset = registry_for(config)
    async with toolset:
        result = await registry.call("t", {})
    assert result.code is ErrorCode.TIMEOUT
    assert "0.2 s" in result.content


@pytest.mark.parametrize(("tool_s", "call_s", "said"), [(5.0, 0.2, "0.2 s"), (0.2, 5.0, "0.2 s")])
async def test_the_calls_and_the_tools_deadlines_nest(
    base: str, tool_s: float, call_s: float, said: str
) -> None:
    registry, toolset = registry_for(one_tool(base, endpoint="/slow", timeout_seconds=tool_s))
    async with toolset:
        result = await registry.call("t", {}, options=CallOptions(timeout=call_s))
        after = await registry.call("t", {}, options=CallOptions(timeout=call_s))
    assert result.code is ErrorCode.TIMEOUT, result.content
    assert said in result.content
    assert after.code is ErrorCode.TIMEOUT  # the loop's deadlines are left in order


async def test_text_responses_stay_text(base: str) -> None:
    registry, toolset = registry_for(one_tool(base, endpoint="/text"))
    async with toolset:
        result = await registry.call("t", {})
    assert (result.content, result.structured) == ("plain words", None)


async def test_json_without_template_is_json_not_a_repr(base: str) -> None:
    # /flaky answers 503 twice per server first: the retries make the test independent of order.
    registry, toolset = registry_for(one_tool(base, endpoint="/flaky", retry_count=3))
    async with toolset:
        result = await registry.call("t", {})
    assert json.loads(result.content) == result.structured


async def test_secrets_from_variables_never_appear_in_messages_or_specs(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERS_TOKEN", "s3cret-token-value")
    config = one_tool(
        base, endpoint="/echo-headers", auth={"type": "bearer", "token": "${ORDERS_TOKEN}"}
    )
    registry, toolset = registry_for(config)
    tool = registry.get("t")
    async with toolset:
        result = await registry.call("t", {})
    assert result.code is ErrorCode.AUTH_FAILED
    assert "bad token Bearer ***" in result.content
    everything = " ".join(
        [
            result.content,
            repr(result),
            repr(tool),
            json.dumps(tool.spec.to_dict()),
            repr(toolset),
            json.dumps(result.to_dict(), default=str),
        ]
    )
    assert "s3cret-token-value" not in everything


@pytest.mark.parametrize(
    "host",
    [
        "169.254.169.254",
        "[::ffff:169.254.169.254]",
        "[::ffff:a9fe:a9fe]",
        "metadata.google.internal",
    ],
)
async def test_cloud_metadata_is_never_reachable(host: str) -> None:
    registry, toolset = registry_for({"t": {"endpoint": f"http://{host}/latest/meta-data"}})
    async with toolset:
        result = await registry.call("t", {})
    assert result.code is ErrorCode.DENIED
    assert "metadata" in result.content


def test_sync_calls_work_through_call_sync(base: str) -> None:
    registry, toolset = registry_for(example_config(base))
    with toolset:
        result = registry.call_sync(
            "get_order", {"userId": "u", "orderId": "o", "Authorization": "t"}
        )
    assert result.content.startswith("Order ID: o\n"), result.content


async def test_header_variables_are_read_when_each_request_is_sent(
    base: str, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERS_KEY", "key-one")
    config = one_tool(
        base,
        endpoint="/flaky",
        headers={"X-Api-Key": "${ORDERS_KEY}", "X-Region": "${ORDERS_REGION:-eu}"},
        auth={"type": "header", "header": "X-Other", "token": "${ORDERS_KEY}"},
    )
    registry, toolset = registry_for(config)
    async with toolset:
        await registry.call("t", {})
        monkeypatch.setenv("ORDERS_KEY", "key-two")
        await registry.call("t", {})
    first, second = recorder.requests
    assert (first.headers["x-api-key"], first.headers["x-region"]) == ("key-one", "eu")
    assert (second.headers["x-api-key"], second.headers["x-other"]) == ("key-two", "key-two")
    assert "key-" not in repr(toolset.tools[0].config) + repr(toolset.tools[0].spec)


async def test_the_wire_log_shows_each_exchange_with_secrets_masked(
    base: str, recorder: Recorder, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLKIT_WIRE_LOG", "1")
    monkeypatch.setenv("ORDERS_KEY", "k-wire-secret")
    config = one_tool(
        base,
        "order",
        endpoint="/users/{userId}/orders/{orderId}",
        headers={"X-Api-Key": "${ORDERS_KEY}"},
        parameters=[
            {"name": "userId", "position": "path", "required": True},
            {"name": "orderId", "position": "path", "required": True},
        ],
    )
    registry, toolset = registry_for(config)
    with caplog.at_level(logging.DEBUG, logger="toolkit.wire"):
        async with toolset:
            result = await registry.call("order", {"userId": "u1", "orderId": "o7"})
    assert not result.is_error, result.content
    assert recorder.last.headers["x-api-key"] == "k-wire-secret"
    lines = [r.getMessage() for r in caplog.records if r.name == "toolkit.wire"]
    assert len(lines) == 1
    assert lines[0].startswith(f"http GET {base}/users/u1/orders/o7 -> 200 in ")
    assert "k-wire-secret" not in lines[0]


def _cookie_app() -> Starlette:
    async def visit(request: Request) -> JSONResponse:
        response = JSONResponse({"cookie": request.headers.get("cookie", "")})
        response.set_cookie("session", "caller-a")
        return response

    return Starlette(routes=[Route("/visit", visit)])


async def test_a_cookie_one_call_received_is_never_sent_on_the_next() -> None:
    # The toolset's pooled client serves every caller: a session cookie the service gave one
    # call must not ride on the next (another caller's) call.
    with serving(_cookie_app()) as url:
        registry, toolset = registry_for(one_tool(url, endpoint="/visit"))
        async with toolset:
            first = await registry.call("t", {})
            second = await registry.call("t", {})
    assert not first.is_error, first.content
    assert first.structured == {"cookie": ""}
    assert second.structured == {"cookie": ""}


async def test_a_denied_address_is_denied_on_every_call(base: str, recorder: Recorder) -> None:
    toolset = HttpToolset.from_config(
        one_tool(base, endpoint="/text"), network_policy=NetworkPolicy.untrusted()
    )
    registry = ToolRegistry()
    toolset.register_into(registry)
    async with toolset:
        results = [await registry.call("t", {}) for _ in range(2)]
    assert [r.code for r in results] == [ErrorCode.DENIED, ErrorCode.DENIED]
    assert recorder.requests == []


class _ClosingPolicy(NetworkPolicy):
    """Allows the first request only: a policy whose verdict changes over time."""

    asked: ClassVar[list[str]] = []

    async def check(self, url: str, *, server: str = "") -> None:
        self.asked.append(url)
        if len(self.asked) > 1:
            raise NetworkPolicyError(f"{server}: closed after the first request")
        await super().check(url, server=server)


async def test_a_policy_of_its_own_is_asked_at_every_call(base: str) -> None:
    _ClosingPolicy.asked.clear()
    toolset = HttpToolset.from_config(
        one_tool(base, endpoint="/text"), network_policy=_ClosingPolicy()
    )
    registry = ToolRegistry()
    toolset.register_into(registry)
    async with toolset:
        first, second = [await registry.call("t", {}) for _ in range(2)]
    assert not first.is_error, first.content
    assert second.code is ErrorCode.DENIED
    assert "closed after the first request" in second.content
