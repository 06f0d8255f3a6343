"""A served tool call becomes an OpenTelemetry span (under the MCP request's span) and metrics."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adapters.mcp_server import ServeSettings, create_app
from adapters.otel import CallTelemetry, instrument
from tests.adapters.mcp_server.conftest import serving
from toolkit import ToolRegistry, mcp_tool
from toolkit.records.call_log import read_calls

TOKEN = "otel-token-81c2"
EXPORTER = InMemorySpanExporter()
READER = InMemoryMetricReader()


@pytest.fixture(scope="module", autouse=True)
def _sdk() -> None:
    """The application's part: configure the SDK's global providers, once per process."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    if not isinstance(metrics.get_meter_provider(), MeterProvider):
        metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))


@pytest.fixture
def base_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("OTEL_TEST_TOKEN", TOKEN)
    settings = ServeSettings(
        target="tests.support.served_registry:registry",
        token_env="OTEL_TEST_TOKEN",
        metrics=True,
        trace_arguments=True,
    )
    with serving(create_app(settings)) as url:
        yield url


def _spans(name: str) -> list[ReadableSpan]:
    return [s for s in EXPORTER.get_finished_spans() if s.name == name]


def _points(name: str) -> list[Any]:
    data = READER.get_metrics_data()
    assert data is not None
    return [
        point
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for metric in sm.metrics
        if metric.name == name
        for point in metric.data.data_points
    ]


@pytest.mark.anyio
async def test_a_served_call_is_a_span_under_the_mcp_request(base_url: str) -> None:
    EXPORTER.clear()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(20)
    )
    async with Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client:
        ok = await client.call_tool("add", {"a": 2, "b": 3})
        bad = await client.call_tool("find_bin", {"code": "Z"})
    assert not ok.is_error and bad.is_error

    (span,) = _spans("execute_tool add")
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.tool.name"] == "add"
    assert attrs["toolkit.call.outcome"] == "ok" and attrs["toolkit.call.code"] == "OK"
    assert attrs["toolkit.call.attempts"] == 1
    assert "served_registry" in str(attrs["toolkit.tool.source"])
    assert attrs["toolkit.call.arguments"] == '{"a": 2, "b": 3}'
    assert span.end_time is not None and span.start_time is not None
    assert span.end_time >= span.start_time
    # Its parent is the MCP SDK's server span of the incoming tools/call request.
    (request,) = [s for s in EXPORTER.get_finished_spans() if s.name == "tools/call add"]
    assert span.parent is not None and span.parent.span_id == request.context.span_id
    assert span.context.trace_id == request.context.trace_id

    (failed,) = _spans("execute_tool find_bin")
    assert failed.attributes["toolkit.call.code"] == "EXECUTION_ERROR"  # type: ignore[index]
    assert failed.status.status_code == trace.StatusCode.ERROR

    counts = {
        (p.attributes["tool"], p.attributes["code"]): p.value for p in _points("toolkit.tool.calls")
    }
    assert counts[("add", "OK")] >= 1 and counts[("find_bin", "EXECUTION_ERROR")] >= 1
    (latency,) = [p for p in _points("toolkit.tool.duration") if p.attributes["tool"] == "add"]
    assert latency.count >= 1

    # The Prometheus endpoint asks for the same token, then counts the same calls.
    with httpx.Client(base_url=base_url, timeout=10) as raw:
        assert raw.get("/metrics").status_code == 401
        scraped = raw.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert scraped.status_code == 200
    assert 'toolkit_tool_calls_total{code="OK",outcome="ok",tool="add"} 1.0' in scraped.text
    assert 'toolkit_tool_duration_seconds_count{code="EXECUTION_ERROR",tool="find_bin"} 1.0' in (
        scraped.text
    )


def test_the_call_log_names_the_caller_from_a_trusted_header(tmp_path: Path) -> None:
    settings = ServeSettings(
        target="tests.support.served_registry:registry",
        call_log=str(tmp_path / "calls.db"),
        caller_header="X-Forwarded-User",
        telemetry=False,
    )
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with serving(create_app(settings)) as url, httpx.Client(base_url=url, timeout=20) as raw:
        raw.post("/mcp", json=body, headers={**headers, "X-Forwarded-User": "alice"})
        raw.post("/mcp", json=body, headers=headers)
    calls = read_calls(tmp_path / "calls.db")
    assert sorted((c.tool, c.outcome, c.caller) for c in calls) == [
        ("add", "ok", "127.0.0.1"),
        ("add", "ok", "alice"),
    ]


def _private_tracing() -> tuple[InMemorySpanExporter, TracerProvider]:
    """A tracer provider of the test's own, exporting to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter, provider


def test_secrets_never_reach_a_span() -> None:
    @mcp_tool
    def login(user: str, password: str) -> str:
        """Log in.

        Args:
            user: Who.
            password: Their password.
        """
        return "ok"

    registry = ToolRegistry()
    registry.register(login)
    exporter, provider = _private_tracing()
    registry.subscribe(CallTelemetry(registry, arguments=True, tracer_provider=provider))
    registry.call_sync("login", {"user": "bob", "password": "hunter22"})
    (span,) = exporter.get_finished_spans()
    assert span.attributes["toolkit.call.arguments"] == '{"user": "bob", "password": "***"}'  # type: ignore[index]


def test_instrumenting_twice_never_doubles_the_spans() -> None:
    def ping() -> str:
        """Ping."""
        return "ok"

    registry = ToolRegistry()
    registry.register(ping)
    exporter, provider = _private_tracing()
    instrument(registry, tracer_provider=provider)
    undo = instrument(registry, tracer_provider=provider)  # e.g. a second app on one registry
    registry.call_sync("ping", {})
    assert len(exporter.get_finished_spans()) == 1
    undo()
    undo()  # twice is harmless
    registry.call_sync("ping", {})
    assert len(exporter.get_finished_spans()) == 1


def test_without_an_sdk_nothing_is_emitted() -> None:
    registry = ToolRegistry()

    @mcp_tool
    def ping() -> str:
        """Ping."""
        return "pong"

    registry.register(ping)
    telemetry = CallTelemetry(
        registry,
        tracer_provider=trace.NoOpTracerProvider(),
        meter_provider=metrics.NoOpMeterProvider(),
    )
    registry.subscribe(telemetry)
    assert registry.call_sync("ping", {}).content == "pong"
    assert telemetry._tracer is None and telemetry._instruments is None


@pytest.mark.parametrize("asynchronous", [False, True])
def test_tool_spans_of_an_agent_run_sit_under_the_application_span(asynchronous: bool) -> None:
    import anyio

    from adapters.langgraph import build_agent
    from adapters.testing import ScriptedChatModel

    @mcp_tool(read_only=True)
    def get_bin(code: str) -> dict[str, str]:
        """Look up a bin.

        Args:
            code: The bin code.
        """
        return {"code": code}

    registry = ToolRegistry()
    registry.register(get_bin)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    registry.subscribe(CallTelemetry(registry, tracer_provider=provider))
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "get_bin", "args": {"code": "B-1"}}]}, "B-1 is there."]
    )
    agent = build_agent(model, registry)
    request = {"messages": [("user", "where is B-1?")]}
    with provider.get_tracer("app").start_as_current_span("agent run") as run:
        if asynchronous:
            anyio.run(agent.ainvoke, request)
        else:
            agent.invoke(request)
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "execute_tool get_bin"]
    assert span.parent is not None
    assert span.parent.span_id == run.get_span_context().span_id


def test_every_call_is_a_span_with_no_set_up_call() -> None:
    @mcp_tool(read_only=True)
    def native_ping() -> str:
        """Ping."""
        return "pong"

    registry = ToolRegistry()
    registry.register(native_ping)
    registry.call_sync("native_ping", {})
    assert len(_spans("execute_tool native_ping")) == 1  # the SDK the application set up
    assert _points("toolkit.tool.calls")

    registry.telemetry = False
    registry.call_sync("native_ping", {})
    assert len(_spans("execute_tool native_ping")) == 1

    registry.telemetry = True
    exporter, provider = _private_tracing()
    undo = instrument(registry, tracer_provider=provider)  # options replace the native spans
    registry.call_sync("native_ping", {})
    assert len(exporter.get_finished_spans()) == 1
    assert len(_spans("execute_tool native_ping")) == 1
    undo()
    registry.call_sync("native_ping", {})
    assert len(_spans("execute_tool native_ping")) == 2


NO_SDK = """
import time
from opentelemetry import trace
from toolkit import ToolRegistry
from toolkit.records import _auto_telemetry

looks = []
real = trace.get_tracer_provider
trace.get_tracer_provider = lambda: looks.append(1) or real()

def ping() -> str:
    '''Ping.'''
    return "pong"

registry = ToolRegistry(timeout=None)
registry.register(ping)
started = time.monotonic()
for _ in range(2000):
    registry.call_sync("ping", {})
elapsed = time.monotonic() - started
emitter = _auto_telemetry._emitter
assert emitter._tracer is None and emitter._instruments is None
# looked at the providers once, then at most once a second
assert 1 <= len(looks) <= 2 + int(elapsed), (len(looks), elapsed)
print("ok")
"""

NO_API = """
import sys
sys.modules["opentelemetry"] = None  # as if opentelemetry-api were not installed
from toolkit import ToolRegistry
from toolkit.records import _auto_telemetry

def ping() -> str:
    '''Ping.'''
    return "pong"

registry = ToolRegistry()
registry.register(ping)
assert registry.call_sync("ping", {}).content == "pong"
assert _auto_telemetry._emitter is False
print("ok")
"""


@pytest.mark.parametrize("script", [NO_SDK, NO_API], ids=["no-sdk", "no-api"])
def test_without_an_sdk_a_call_only_looks_now_and_then(script: str) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
