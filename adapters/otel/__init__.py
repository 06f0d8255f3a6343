"""Traces and metrics for tool calls: OpenTelemetry spans and a Prometheus scrape endpoint.

Install ``mcp-toolkit[otel]`` (``opentelemetry-api`` only). Configure the OpenTelemetry SDK in
the application as usual; :func:`instrument` then sends one span per tool call, and call
counters and duration histograms, to the global providers::

    from adapters.otel import instrument
    instrument(registry)

``toolkit serve`` and the app factory instrument their registry by themselves.
"""

from adapters._extras import require

require("adapters.otel", "otel")

from adapters.otel._tracing import MAX_ARGUMENT_CHARS, CallTelemetry, instrument

__all__ = ["MAX_ARGUMENT_CHARS", "CallTelemetry", "instrument"]
