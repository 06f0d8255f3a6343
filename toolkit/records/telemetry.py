"""One OpenTelemetry span per tool call, plus call counters and latency histograms.

Native instrumentation, as OpenTelemetry asks of libraries: every :class:`~toolkit.ToolRegistry`
sends its calls here by itself (``registry.telemetry``, on by default) once ``opentelemetry-api``
is installed (the ``[otel]`` extra), with no set-up call. Spans and metrics go to the global
tracer and meter providers that the application configured with the OpenTelemetry SDK. Without
a configured SDK the providers are no-ops: a call then costs a clock read here, and the
providers are looked at again once a second. ``adapters.otel.instrument`` adds options (the
arguments on spans, providers of one's own).

This module imports ``opentelemetry``: the core imports it only when that package is installed.
"""

from __future__ import annotations

import json
import time
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from toolkit.records.labels import tool_label
from toolkit.result import CallRecord

__all__ = ["MAX_ARGUMENT_CHARS", "CallTelemetry"]

_SCOPE = "mcp-toolkit"
_NOOP_TRACERS: tuple[type, ...] = (trace.NoOpTracerProvider, trace.ProxyTracerProvider)
_NOOP_METERS: tuple[type, ...] = (metrics.NoOpMeterProvider,)
try:  # the proxy the API hands out before an SDK is set
    from opentelemetry.metrics._internal import _ProxyMeterProvider

    _NOOP_METERS = (*_NOOP_METERS, _ProxyMeterProvider)
except ImportError:  # pragma: no cover - private name of older API versions
    pass

# Seconds between two looks for a configured SDK while there is none.
_RECHECK_S = 1.0

#: Longest ``toolkit.call.arguments`` attribute kept on a span.
MAX_ARGUMENT_CHARS = 2048


class CallTelemetry:
    """A record subscriber that turns each :class:`CallRecord` into a span and metrics.

    The span is created when the record arrives, with the call's own start time and duration,
    under the span current at that moment: the MCP SDK's ``tools/call`` server span for a served
    call, or whatever run the application traces (LangChain/LangGraph instrumentations).

    Args:
        registry: Where tool sources are looked up (``toolkit.tool.source``); a
            :class:`~toolkit.ToolRegistry` or anything with ``in`` and ``get(name)``.
        arguments: Add the (already redacted) arguments as ``toolkit.call.arguments``.
        tracer_provider: Instead of the global one (tests, several pipelines).
        meter_provider: Instead of the global one.
    """

    def __init__(
        self,
        registry: Any = None,
        *,
        arguments: bool = False,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self.registry = registry
        self.arguments = arguments
        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider
        self._tracer: trace.Tracer | None = None
        self._instruments: tuple[Any, Any] | None = None
        self._recheck = 0.0  # while no SDK is configured, look again at most once a second

    def _tracer_or_none(self) -> trace.Tracer | None:
        if self._tracer is None:
            provider = self._tracer_provider or trace.get_tracer_provider()
            if isinstance(provider, _NOOP_TRACERS):
                return None  # no SDK yet: check again on the next call
            self._tracer = provider.get_tracer(_SCOPE)
        return self._tracer

    def _meters_or_none(self) -> tuple[Any, Any] | None:
        if self._instruments is None:
            provider = self._meter_provider or metrics.get_meter_provider()
            if isinstance(provider, _NOOP_METERS):
                return None
            meter = provider.get_meter(_SCOPE)
            self._instruments = (
                meter.create_counter(
                    "toolkit.tool.calls", unit="{call}", description="Tool calls by tool and code"
                ),
                meter.create_histogram(
                    "toolkit.tool.duration", unit="ms", description="Tool call duration"
                ),
            )
        return self._instruments

    def __call__(self, record: CallRecord) -> None:
        """Emit the span and metrics of one call."""
        self.emit(record, self.registry)

    def emit(self, record: CallRecord, registry: Any) -> None:
        """Emit the span and metrics of one call of ``registry`` (where its source is found)."""
        if self._tracer is None and self._instruments is None:
            now = time.monotonic()
            if now < self._recheck:
                return
            self._recheck = now + _RECHECK_S
        tracer = self._tracer_or_none()
        meters = self._meters_or_none()
        if tracer is None and meters is None:
            return
        code = record.code.value if record.code else "OK"
        if meters is not None:
            counter, histogram = meters
            tool = tool_label(record, registry)
            labels = {"tool": tool, "outcome": record.outcome, "code": code}
            counter.add(1, labels)
            histogram.record(record.duration_ms, labels)
        if tracer is not None:
            self._span(tracer, record, code, registry)

    def _span(self, tracer: trace.Tracer, record: CallRecord, code: str, registry: Any) -> None:
        start = int(record.started_at * 1e9)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": record.tool,
            "gen_ai.tool.call.id": record.call_id,
            "toolkit.tool.source": _source(registry, record.tool),
            "toolkit.call.outcome": record.outcome,
            "toolkit.call.code": code,
            "toolkit.call.attempts": record.attempts,
            "toolkit.call.decision": record.decision,
            "toolkit.call.duration_ms": record.duration_ms,
        }
        if self.arguments:
            text = json.dumps(record.arguments, default=str)  # redacted by the invoker
            attributes["toolkit.call.arguments"] = text[:MAX_ARGUMENT_CHARS]
        span = tracer.start_span(
            f"execute_tool {record.tool}",
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=start,
        )
        if record.outcome != "ok":
            span.set_attribute("error.type", code if record.code else "raised")
            span.set_status(Status(StatusCode.ERROR, code))
        span.end(end_time=start + int(record.duration_ms * 1e6))


def _source(registry: Any, tool: str) -> str:
    if registry is None or tool not in registry:
        return ""
    try:
        return registry.get(tool).spec.source or ""
    except Exception:
        return ""
