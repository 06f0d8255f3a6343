"""Traces and metrics for tool calls: OpenTelemetry spans and a Prometheus scrape endpoint.

Install ``mcp-toolkit[otel]`` (``opentelemetry-api`` only). Configure the OpenTelemetry SDK in
the application as usual: every registry then sends one span per tool call, and call counters
and duration histograms, to the global providers by itself (:mod:`toolkit.records.telemetry`). Without
an SDK nothing is sent, and a call pays a flag test and, once a second, a look at the providers.
:func:`instrument` is for options: the redacted arguments on spans, providers of one's own::

    from adapters.otel import instrument
    instrument(registry, arguments=True)

``registry.telemetry = False`` turns a registry's spans off (``TOOLKIT_OTEL=0`` for a server).
"""

from adapters._extras import require

require("adapters.otel", "otel")

from adapters.otel._tracing import MAX_ARGUMENT_CHARS, CallTelemetry, instrument

__all__ = ["MAX_ARGUMENT_CHARS", "CallTelemetry", "instrument"]
