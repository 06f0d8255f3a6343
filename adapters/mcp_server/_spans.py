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
        if _traced(ctx):
            return await super().__call__(ctx, call_next)
        return await call_next(ctx)


def _traced(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether a span of this request is recorded or propagates a caller's trace context."""
    if not isinstance(trace.get_tracer_provider(), _UNRECORDED):
        return True
    meta = ctx.params.get("_meta") if isinstance(ctx.params, Mapping) else None
    return isinstance(meta, Mapping) and not propagate.get_global_textmap().fields.isdisjoint(meta)


def quiet_when_untraced(middleware: list[ServerMiddleware[Any]]) -> None:
    """Replace the SDK's span middleware in ``middleware`` (in place) by :class:`RequestSpans`."""
    for i, each in enumerate(middleware):
        if type(each) is OpenTelemetryMiddleware:
            middleware[i] = RequestSpans()
