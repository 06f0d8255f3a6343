"""A Prometheus scrape endpoint with call counters and latency histograms per tool and code.

With several worker processes (``toolkit serve --workers N``, gunicorn), each scrape reaches
one of them; so that it reports the sum over all of them, the workers use
``prometheus_client``'s multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR`` names an empty folder
(``toolkit serve`` makes one, and removes it at exit) where every worker writes its counts, and
a scrape adds them up. A worker that is restarted leaves its counts there, so totals never go
back.

The tool label is a registered tool's name or ``_unknown`` (:mod:`toolkit.records.labels`). The
endpoint is served by the MCP app behind the same ``Host`` check and token as ``/mcp``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    make_asgi_app,
    multiprocess,
    values,
)
from starlette.types import ASGIApp, Receive, Scope, Send

from toolkit.records.labels import tool_label
from toolkit.registry import ToolRegistry
from toolkit.result import CallRecord

__all__ = ["MULTIPROC_DIR_ENV", "PrometheusMetrics", "with_metrics"]

#: The folder shared by the worker processes, as ``prometheus_client`` names it.
MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"

_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class PrometheusMetrics:
    """Counts calls (``toolkit_tool_calls_total``) and times them (``toolkit_tool_duration_seconds``).

    Args:
        collector: The ``prometheus_client`` registry to register into (default: a new one, so
            several servers in one process do not collide).

    With ``$PROMETHEUS_MULTIPROC_DIR`` set (before ``prometheus_client`` is first imported, as
    that library requires) the counts are written to that folder and a scrape reports their sum
    over every worker process.
    """

    def __init__(self, collector: CollectorRegistry | None = None) -> None:
        self.collector = collector or CollectorRegistry()
        # prometheus_client picks its value store when first imported: shared files only if
        # the variable was set by then.
        shared = os.environ.get(MULTIPROC_DIR_ENV) and values.ValueClass is not values.MutexValue
        # In multiprocess mode the values live in the folder's files, which the collector
        # reads: the metrics themselves must not be registered as well (they would count twice).
        into = None if shared else self.collector
        if shared:
            multiprocess.MultiProcessCollector(self.collector)  # type: ignore[no-untyped-call]
        self.calls = Counter(
            "toolkit_tool_calls",
            "Tool calls by tool, outcome and error code.",
            ["tool", "outcome", "code"],
            registry=into,
        )
        self._registry: ToolRegistry | None = None
        self.duration = Histogram(
            "toolkit_tool_duration_seconds",
            "Tool call duration, retries included.",
            ["tool", "code"],
            buckets=_BUCKETS,
            registry=into,
        )

    def __call__(self, record: CallRecord) -> None:
        """Count one call."""
        code = record.code.value if record.code else "OK"
        tool = tool_label(record, self._registry)
        self.calls.labels(tool, record.outcome, code).inc()
        self.duration.labels(tool, code).observe(record.duration_ms / 1000)

    def attach(self, registry: ToolRegistry) -> Callable[[], None]:
        """Count the calls of ``registry`` (labelled by its tool names); returns the undo function."""
        self._registry = registry
        return registry.subscribe(self)

    def asgi_app(self) -> ASGIApp:
        """The scrape endpoint (Prometheus text format)."""
        return make_asgi_app(registry=self.collector)  # type: ignore[no-any-return]


def with_metrics(app: ASGIApp, metrics: ASGIApp, path: str = "/metrics") -> ASGIApp:
    """``app`` with ``metrics`` answering GET ``path``.

    Wrap it inside the app's own ``Host`` check and authentication, never around them; the MCP
    server's ``http_app(metrics=...)`` does so.
    """

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == path:
            await metrics(scope, receive, send)
        else:
            await app(scope, receive, send)

    return route
