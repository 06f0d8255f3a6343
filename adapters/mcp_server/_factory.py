"""An importable ASGI app factory that reads its configuration from the environment.

Any ASGI server can start it, with as many workers or replicas as wanted, because the
stateless HTTP mode lets any process answer any request::

    TOOLKIT_TARGET=myapp.tools uvicorn --factory adapters.mcp_server:create_app --workers 4
    TOOLKIT_TARGET=myapp.tools gunicorn -k uvicorn.workers.UvicornWorker -w 4 \\
        'adapters.mcp_server:create_app()'

``toolkit serve --transport http --workers N`` sets these variables and starts uvicorn.
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import logging
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.mcp_server._auth import token_from_env
from adapters.mcp_server._callers import load_callers
from adapters.mcp_server._embedder import load_embedder
from adapters.mcp_server._governance import govern
from adapters.mcp_server._http import http_app
from adapters.mcp_server._log_relay import relay_info_records
from adapters.mcp_server._server import build_server
from adapters.mcp_server._settings import ServeSettings
from adapters.sources import Sources, check_sources, open_sources, registry_for
from toolkit import Middleware, RunBudget
from toolkit.calls.options import CallOptions
from toolkit.records.call_log import CallLog
from toolkit.registry import ToolRegistry
from toolkit.result import CallRecord

__all__ = ["create_app", "observe"]

log = logging.getLogger("toolkit.server")


def search_by_meaning(registry: ToolRegistry, settings: ServeSettings) -> None:
    """Give the registry's search the embedder ``settings`` name, if any.

    Raises:
        ValueError: The embedder is named without ``tool_search``, or cannot be loaded.
    """
    if settings.search_embedder is None:
        return
    if settings.tool_search is None:
        raise ValueError(
            "--search-embedder ranks the search tool that --tool-search K lists: add "
            "--tool-search (TOOLKIT_TOOL_SEARCH), or leave the embedder out."
        )
    registry.configure_search(embedder=load_embedder(settings.search_embedder))


def log_call_line(record: CallRecord) -> None:
    """One line per call on stderr: tool, outcome code, time and the ref messages quote.

    On an event loop the line is written on the loop's next turn, once the reply it follows
    has gone out: a write to stderr (often a pipe its host reads) wakes the reader, and the
    reply need not wait for that.
    """
    code = record.code.value if record.code else "ok"
    line = f"call {record.tool} {code} {record.duration_ms:.0f} ms ref {record.call_id}\n"
    try:
        asyncio.get_running_loop().call_soon(_write_line, line)
    except RuntimeError:  # no loop in this thread
        _write_line(line)


def _write_line(line: str) -> None:
    # stdout carries the protocol on stdio; one write per line keeps workers' lines whole.
    sys.stderr.write(line)
    sys.stderr.flush()


def observe(
    registry: ToolRegistry, settings: ServeSettings
) -> tuple[ASGIApp | None, CallLog | None]:
    """Attach the call log and telemetry ``settings`` ask for.

    Returns:
        The metrics app (if asked for) and the call log (if any; close it on shutdown).
    """
    if settings.call_lines:
        registry.subscribe(log_call_line)
    call_log = None
    if settings.call_log:
        call_log = CallLog(settings.call_log).attach(registry)
        atexit.register(call_log.close)  # a plain exit; servers close it at lifespan shutdown
    if not settings.telemetry:
        registry.telemetry = False  # the registry's native spans too
    elif settings.trace_arguments:
        try:
            from adapters.otel import instrument
        except ImportError:
            log.debug("opentelemetry-api is not installed: no spans")
        else:
            instrument(registry, arguments=True)
    if not settings.metrics:
        return None, call_log
    try:
        from adapters.otel.prometheus import PrometheusMetrics
    except ImportError as exc:
        raise ValueError(
            "TOOLKIT_METRICS needs prometheus-client: pip install 'mcp-toolkit[metrics]'."
        ) from exc
    metrics = PrometheusMetrics()
    metrics.attach(registry)
    return metrics.asgi_app(), call_log


def _closing(app: ASGIApp, call_log: CallLog) -> ASGIApp:
    """``app``, closing ``call_log`` when the server shuts down (after calls in flight).

    uvicorn ends a worker stopped by SIGTERM with the signal's default action, so exit hooks
    never run: the last records are written here, before shutdown completes.
    """

    async def lifespan_aware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return

        async def on_send(message: Message) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                await anyio.to_thread.run_sync(call_log.close)
            await send(message)

        await app(scope, receive, on_send)

    return lifespan_aware


def _with_sources(app: ASGIApp, registry: ToolRegistry, sources: Sources) -> ASGIApp:
    """``app``, with the sources besides the TARGET (remote servers, HTTP tools) open in
    ``registry`` while it runs.

    The sources open before startup completes and close before shutdown completes (after
    the calls in flight), while the server still waits for them.
    """

    async def with_sources(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await app(scope, receive, send)
            return
        async with AsyncExitStack() as stack:
            await stack.enter_async_context(open_sources(registry, sources))

            async def on_send(message: Message) -> None:
                if message["type"] == "lifespan.shutdown.complete":
                    await stack.aclose()
                await send(message)

            await app(scope, receive, on_send)

    return with_sources


def create_app(
    settings: ServeSettings | None = None,
    *,
    options: CallOptions | None = None,
    budget: RunBudget | None = None,
    middleware: Sequence[Middleware] = (),
) -> ASGIApp:
    """The stateless streamable-HTTP app for the tools the environment names.

    Args:
        settings: Instead of reading ``TOOLKIT_*`` variables (see :class:`ServeSettings`).
        options: Per-call options for every ``tools/call`` (see :func:`build_server`).
        budget: Each caller's run budget per window, over ``TOOLKIT_BUDGET``.
        middleware: Around every call, inside the budget and rate limit (see
            ``docs/middleware.md``).

    Raises:
        ValueError: The environment is incomplete or wrong (the message names the variable).
        RegistrationError: The target holds no tools or a tool is broken.
    """
    settings = settings or ServeSettings.from_env()
    relay_info_records()
    token = token_from_env(settings.token_env) if settings.token_env else None
    sources = settings.sources
    # The other sources open with the app; a broken file fails here, as the TARGET does.
    others = dataclasses.replace(sources, target=None)
    check_sources(others)
    registry = registry_for(sources)
    search_by_meaning(registry, settings)
    metrics, call_log = observe(registry, settings)
    options = govern(
        options,
        budget=budget or settings.budget,
        rate_limit=settings.rate_limit,
        middleware=middleware,
    )
    server = build_server(
        registry,
        name=settings.name or settings.target or "mcp-toolkit",
        page_size=settings.page_size,
        allow_destructive=settings.allow_destructive,
        callers=load_callers(settings.callers) if settings.callers else None,
        tool_search=settings.tool_search,
        options=options,
        caller_header=settings.caller_header,
    )
    app = http_app(
        server,
        stateless=True,
        token=token,
        host=settings.host,
        allowed_hosts=settings.allowed_hosts,
        max_body_bytes=settings.max_body_bytes,
        metrics=metrics,  # behind the same Host check and token (or callers) as /mcp
    )
    if others:
        app = _with_sources(app, registry, others)
    if call_log is not None:
        app = _closing(app, call_log)
    return app
