"""What ``toolkit serve`` runs: :func:`serve_command` (its typer front end is in ``adapters.cli``)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from typing import Literal

import anyio
import uvicorn

from adapters.mcp_server._auth import token_from_env
from adapters.mcp_server._banner import serving_line
from adapters.mcp_server._callers import load_callers
from adapters.mcp_server._embedder import load_embedder
from adapters.mcp_server._factory import observe, search_by_meaning
from adapters.mcp_server._governance import check_limits, govern
from adapters.mcp_server._http import DEFAULT_MAX_CONNECTIONS, KEEP_ALIVE_S, serve_http
from adapters.mcp_server._log_relay import relay_info_records
from adapters.mcp_server._rounds import STATE_KEY_ENV
from adapters.mcp_server._server import build_server
from adapters.mcp_server._settings import ServeSettings
from adapters.mcp_server._stdio import serve_stdio
from adapters.mcp_server._timeouts import DEFAULT_PROTOCOL
from adapters.sources import check_sources, open_sources, registry_for
from toolkit.records.store import open_call_store, redact_target
from toolkit.registry import ToolRegistry

__all__ = ["run_workers", "serve_command"]

TransportName = Literal["stdio", "http"]


def serve_command(settings: ServeSettings) -> None:
    """Serve the tools ``settings`` name until the client hangs up (stdio) or Ctrl-C (http).

    Args:
        settings: Everything ``toolkit serve`` was given (see :class:`ServeSettings`, whose
            fields carry each flag, variable and help).

    Raises:
        ValueError: The transport is unknown, ``token_env`` is set for stdio or names an empty
            variable, ``workers``/``metrics`` do not fit the other options, or the target
            holds no tools (``RegistrationError``).
    """
    transport, host, port = settings.transport, settings.host, settings.port
    if transport not in ("stdio", "http"):
        raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'http'.")
    if settings.token_env and transport == "stdio":
        raise ValueError(
            "--token-env only applies to --transport http: a stdio server is reachable only by "
            "the process that started it."
        )
    token = token_from_env(settings.token_env) if settings.token_env else None
    if not settings.sources:
        raise ValueError("Nothing to serve: give a TARGET, --http-tools FILE or --config FILE.")
    if settings.callers is not None and transport == "stdio":
        raise ValueError("--callers only applies to --transport http: stdio has no tokens.")
    check_limits(settings.budget, settings.rate_limit)
    relay_info_records()  # tools' INFO records reach clients that ask for them
    settings = settings.replace(call_lines=True)  # in every mode, each worker writing its own
    # Budgets and rate limits count per caller, whom the app tells apart (as the call log does).
    per_caller = settings.budget is not None or settings.rate_limit is not None
    logged = settings.call_log is not None or per_caller
    if settings.workers > 1 or settings.metrics or (logged and transport == "http"):
        _check_scaled(settings)
        _check_files(settings)  # fail here, once, rather than in every worker
        _say(_workers_line(settings))
        run_workers(settings)
        return
    others = dataclasses.replace(settings.sources, target=None)
    check_sources(others)  # a broken file stops here, before anything starts
    registry = registry_for(settings.sources)
    search_by_meaning(registry, settings)
    observe(registry, settings)
    options = govern(None, budget=settings.budget, rate_limit=settings.rate_limit)
    server_name = settings.name or settings.target or "mcp-toolkit"
    tool_search = settings.tool_search
    server = build_server(
        registry,
        name=server_name,
        page_size=settings.page_size,
        allow_destructive=settings.allow_destructive,
        callers=load_callers(settings.callers) if settings.callers is not None else None,
        tool_search=settings.tool_search,
        caller_header=settings.caller_header,
        options=options,
    )

    async def main() -> None:
        async with open_sources(registry, others) as opened:
            for source in opened:
                _say(f"Added {source}")
            if transport == "stdio":
                _stop_at_once_on_ctrl_c()
                stdio = " (MCP messages on stdin/stdout; Ctrl-C stops)"
                _say(
                    serving_line(
                        registry, server_name, "over stdio", tool_search=tool_search, note=stdio
                    )
                )
                await serve_stdio(server)
                return
            auth = f" (bearer token from ${settings.token_env})" if token else ""
            where = f"at http://{host}:{port}/mcp"
            _say(serving_line(registry, server_name, where, tool_search=tool_search, note=auth))
            await serve_http(
                server,
                host=host,
                port=port,
                token=token,
                stateless=not settings.stateful,
                allowed_hosts=settings.allowed_hosts,
            )

    anyio.run(main)


def _workers_line(settings: ServeSettings) -> str:
    """The banner with workers: the TARGET's tools counted here, the others opened by each."""
    registry = registry_for(settings.sources)  # imported already, by the check
    what = settings.target or settings.config or settings.http_tools or ""
    more = [
        f for f, v in (("--config", settings.config), ("--http-tools", settings.http_tools)) if v
    ]
    also = f", plus the tools of {' and '.join(more)} (each worker opens them)" if more else ""
    where = f"at http://{settings.host}:{settings.port}/mcp"
    count = "worker" if settings.workers == 1 else "workers"
    note = f" with {settings.workers} {count}{also}"
    return serving_line(registry, str(what), where, tool_search=settings.tool_search, note=note)


def _check_scaled(settings: ServeSettings) -> None:
    if settings.transport != "http":
        raise ValueError("--workers and --metrics need --transport http.")
    if settings.stateful:
        raise ValueError(
            "--workers needs stateless HTTP (the default): a session lives in one process, and "
            "the next request of its client may reach another (so do --metrics, --call-log, "
            "--budget and --rate-limit over HTTP, which run the same app)."
        )
    if settings.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {settings.workers}.")


def _check_files(settings: ServeSettings) -> None:
    """Load what every worker will load, so a broken file stops startup with one message."""
    check_sources(settings.sources)
    if settings.search_embedder is not None:  # imported, not built: each worker builds its own
        if settings.tool_search is None:
            search_by_meaning(ToolRegistry(), settings)  # raises the message that says why
        load_embedder(settings.search_embedder, build=False)
    if settings.callers is not None:
        load_callers(settings.callers)
    if settings.call_log is not None:
        _check_call_log(settings.call_log)


def _check_call_log(target: str) -> None:
    """Refuse a target no store reads (or whose driver is missing); warn, and go on, when the
    database cannot be reached now: calls are served and their rows dropped until it can."""
    store = open_call_store(target)
    try:
        store.open()  # creates the table once, before the workers race to
    except Exception as exc:
        why = " ".join(redact_target(str(exc), target).split())
        _say(f"warning: {why} (calls are served; their log rows are dropped until it is back)")
    finally:
        store.close()


def run_workers(settings: ServeSettings, *, graceful_s: int = 30) -> None:
    """Start uvicorn with ``settings.workers`` processes, each building the app from
    ``settings`` (handed over as the ``TOOLKIT_*`` variables :meth:`ServeSettings.to_env` gives).

    On SIGTERM/SIGINT each worker stops accepting connections and finishes the calls in flight
    (up to ``graceful_s`` seconds) before it exits.
    """
    os.environ.update(settings.to_env())
    # Every worker must open the requestState another one sealed (a client's next round may
    # reach any worker): one key for all, unless the operator set one for all replicas.
    os.environ.setdefault(STATE_KEY_ENV, secrets.token_urlsafe(32))
    with _shared_metrics(settings.metrics):
        _run_uvicorn(settings, graceful_s=graceful_s)


@contextlib.contextmanager
def _shared_metrics(metrics: bool) -> Iterator[None]:
    """With ``--metrics``, a fresh folder where every worker writes its counts, so that a
    scrape answered by any worker reports the sum (``prometheus_client``'s multiprocess mode);
    removed at exit. An operator's own ``PROMETHEUS_MULTIPROC_DIR`` is used as it is."""
    if not metrics or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        yield
        return
    folder = tempfile.mkdtemp(prefix="toolkit-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
    try:
        yield
    finally:
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
        shutil.rmtree(folder, ignore_errors=True)


def _run_uvicorn(settings: ServeSettings, *, graceful_s: int) -> None:
    uvicorn.run(
        "adapters.mcp_server._factory:create_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        # The single-process server's bounds: a read deadline per request, a bounded head,
        # a cap on connections (503 past it), idle keep-alive closed after 5 s.
        http=DEFAULT_PROTOCOL,
        limit_concurrency=DEFAULT_MAX_CONNECTIONS,
        timeout_keep_alive=KEEP_ALIVE_S,
        log_level="warning",
        timeout_graceful_shutdown=graceful_s,
        # A worker answers the supervisor's pings only once its imports are done; on a busy
        # machine that takes longer than uvicorn's 5 s, and it would be killed and restarted.
        timeout_worker_healthcheck=60,
    )


def _stop_at_once_on_ctrl_c() -> None:
    """Ctrl-C ends a stdio server now, with exit 130, even while a thread waits on stdin."""

    def stop(signum: int, frame: object) -> None:
        os.write(2, b"Stopped (Ctrl-C).\n")  # fd 2 directly: no lock a handler could deadlock on
        os._exit(130)

    signal.signal(signal.SIGINT, stop)


def _say(message: str) -> None:
    # stdout carries the protocol on stdio, so everything for people goes to stderr.
    print(message, file=sys.stderr)
