"""``instrument(registry)``: spans and metrics with options (arguments, providers of one's own).

A registry sends spans by itself (:mod:`toolkit.records.telemetry`); :func:`instrument` replaces that
with a :class:`CallTelemetry` of the given options, so a call never gets two spans.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable

from opentelemetry import metrics, trace

from toolkit.records.telemetry import MAX_ARGUMENT_CHARS, CallTelemetry
from toolkit.registry import ToolRegistry

__all__ = ["MAX_ARGUMENT_CHARS", "CallTelemetry", "instrument"]


def instrument(
    registry: ToolRegistry,
    *,
    arguments: bool = False,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> Callable[[], None]:
    """Send a span and metrics for every call of ``registry`` with these options; returns the
    undo function (after which the registry's own telemetry is back on).

    Instrumenting a registry again replaces the earlier instrumentation (the latest settings
    win), and turns the registry's native telemetry off, so a call never gets two spans.

    Args:
        registry: The registry to watch.
        arguments: Add the redacted arguments to each span.
        tracer_provider: Instead of the global tracer provider.
        meter_provider: Instead of the global meter provider.
    """
    previous = _instrumented.pop(registry, None)
    if previous is not None:
        previous()
    telemetry = CallTelemetry(
        registry,
        arguments=arguments,
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
    )
    unsubscribe = registry.subscribe(telemetry)
    registry.telemetry = False

    def undo() -> None:
        if _instrumented.get(registry) is undo:
            del _instrumented[registry]
            registry.telemetry = True
        with contextlib.suppress(ValueError):  # undone twice
            unsubscribe()

    _instrumented[registry] = undo
    return undo


#: The undo function of each instrumented registry.
_instrumented: weakref.WeakKeyDictionary[ToolRegistry, Callable[[], None]] = (
    weakref.WeakKeyDictionary()
)
