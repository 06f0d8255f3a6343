"""The SDK's request span, opened only when it can be recorded or carries a trace onward.

The SDK wraps every inbound request in an OpenTelemetry span (``OpenTelemetryMiddleware``).
Without a tracer provider (opentelemetry-api's default) that span records nothing, yet
building it, its attributes and its context switch cost about a tenth of a served
``tools/call``. :class:`RequestSpans` opens it exactly as the SDK does when a tracer provider
is configured (so a tool's span still sits under the MCP request's), or when the request's
``_meta`` carries a propagated trace context (the span then passes that context on to the
handler even unrecorded); otherwise the request goes straight on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from opentelemetry import propagate, trace

__all__ = ["RequestSpans", "quiet_when_untraced"]

_UNRECORDED = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)


class RequestSpans(OpenTelemetryMiddleware):
    """The SDK's request span middleware, skipped where its span could have no effect."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if _traced(ctx.params):
            return await super().__call__(ctx, call_next)
        return await call_next(ctx)

    def passes_through(self, method: str, version: str, params: Mapping[str, Any] | None) -> bool:
        """Whether :meth:`__call__` only hands such a request on (:mod:`._chain`)."""
        return not _traced(params)


#: The global propagator seen last and the ``_meta`` keys it reads (a composite propagator
#: works its ``fields`` out again on every access).
_fields: list[Any] = [None, frozenset()]


def _traced(params: Any) -> bool:
    """Whether a span of a request with these params is recorded or propagates a caller's
    trace context."""
    if not isinstance(trace.get_tracer_provider(), _UNRECORDED):
        return True
    meta = params.get("_meta") if isinstance(params, dict | Mapping) else None
    if not isinstance(meta, dict | Mapping):
        return False
    textmap = propagate.get_global_textmap()
    if _fields[0] is not textmap:
        _fields[:] = [textmap, frozenset(textmap.fields)]
    fields: frozenset[str] = _fields[1]
    return not fields.isdisjoint(meta)


def quiet_when_untraced(middleware: list[ServerMiddleware[Any]]) -> None:
    """Replace the SDK's span middleware in ``middleware`` (in place) by :class:`RequestSpans`."""
    for i, each in enumerate(middleware):
        if type(each) is OpenTelemetryMiddleware:
            middleware[i] = RequestSpans()
