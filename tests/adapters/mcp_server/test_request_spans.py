"""The SDK's request span is skipped only where it could have no effect: no tracer provider and
no trace context in the request's ``_meta`` (the span's own recording, with a provider, is held
by ``tests/ops/test_telemetry.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp.server._otel import OpenTelemetryMiddleware

from adapters.mcp_server import build_server
from adapters.mcp_server._spans import RequestSpans
from tests.support import served_registry
from tests.support.untraced_server import TRACE_ID

ROOT = Path(__file__).resolve().parents[3]


def test_the_server_wraps_requests_in_the_sdks_span_middleware_once() -> None:
    middleware = build_server(served_registry.build(), name="spans").middleware
    spans = [m for m in middleware if isinstance(m, OpenTelemetryMiddleware)]
    assert len(spans) == 1 and type(spans[0]) is RequestSpans
    assert middleware.index(spans[0]) == 0  # still the outermost, as the SDK places it


def test_without_a_provider_a_propagated_trace_still_reaches_the_tool() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("OTEL_PYTHON_TRACER_PROVIDER", None)
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.untraced_server"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"provider": "ProxyTracerProvider", "plain": "0" * 32, "propagated": TRACE_ID}
