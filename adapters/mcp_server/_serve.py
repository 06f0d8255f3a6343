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
from pathlib import Path
from typing import Literal

import anyio
import uvicorn

from adapters.mcp_server._auth import token_from_env
from adapters.mcp_server._banner import serving_line
from adapters.mcp_server._callers import load_callers
from adapters.mcp_server._embedder import load_embedder
from adapters.mcp_server._factory import AppSettings, observe, search_by_meaning
from adapters.mcp_server._governance import check_limits, govern
from adapters.mcp_server._http import serve_http
from adapters.mcp_server._log_relay import relay_info_records
from adapters.mcp_server._rounds import STATE_KEY_ENV
from adapters.mcp_server._server import build_server
from adapters.mcp_server._stdio import serve_stdio
from adapters.sources import check_sources, open_sources, registry_for
from toolkit.call_store import open_call_store, redact_target
from toolkit.registry import ToolRegistry

__all__ = ["run_workers", "serve_command"]

TransportName = Literal["stdio", "http"]


def serve_command(
    target: str | ToolRegistry | None,
    transport: TransportName = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    token_env: str | None = None,
    config: str | Path | None = None,
    *,
    name: str | None = None,
    page_size: int | None = None,
    stateless: bool = True,
    allowed_hosts: tuple[str, ...] = (),
    workers: int = 1,
    call_log: str | None = None,
    metrics: bool = False,
    http_tools: str | Path | None = None,
    allow_destructive: tuple[str, ...] = (),
    callers: str | Path | None = None,
    tool_search: int | None = None,
    search_embedder: str | None = None,
    budget: str | None = None,
    rate_limit: str | None = None,
) -> None:
    """Serve the tools of ``target`` until the client hangs up (stdio) or Ctrl-C (http).

    Args:
        target: A registry, or where to find one: a module or package (its decorated
            functions), ``module:attribute`` or a file path; ``None`` for HTTP tools only.
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: HTTP bind address.
        port: HTTP port.
        token_env: Environment variable holding the bearer token HTTP clients must send.
        config: An MCP config file (``mcpServers``) whose servers' tools are served too,
            prefixed with each server's name; its ``httpTools`` section adds HTTP tools.
        name: ``serverInfo.name`` (default: the target).
        page_size: Tools per ``tools/list`` page (default: all).
        stateless: Serve HTTP without sessions (default).
        allowed_hosts: More ``Host`` values the HTTP server accepts.
        workers: HTTP worker processes (uvicorn's own workers; stateless HTTP only).
        call_log: A SQLite file (or ``sqlite:///`` URL), or a ``postgresql://`` URL that all
            workers and replicas share, every call is written to.
        metrics: Serve Prometheus metrics at ``/metrics`` (HTTP).
        http_tools: A file of HTTP endpoint tools (``{"httpTools": {...}}``) served too.
        allow_destructive: Tools needing approval that run without asking (``"*"``: all);
            others are approved by the client's user (elicitation) or refused.
        callers: A callers file mapping bearer tokens to callers (HTTP only); every request
            must carry one of its tokens.
        tool_search: List a search tool, a call tool and this many most-used tools instead
            of every tool (``None``: list every tool).
        search_embedder: ``module:attribute`` of an embedder (or of a factory of one) that
            ranks the search tool by meaning as well as words; needs ``tool_search``.
        budget: Each caller's run budget per window (``calls=100,repeats=3,window=60``).
        rate_limit: Calls per caller and tool per window (``caller=60,tool.search=10``).

    Raises:
        ValueError: ``transport`` is unknown, ``token_env`` is set for stdio or names an empty
            variable, ``workers``/``metrics`` do not fit the other options, or ``target``
            holds no tools (``RegistrationError``).
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"Unknown transport {transport!r}: use 'stdio' or 'http'.")
    if token_env and transport == "stdio":
        raise ValueError(
            "--token-env only applies to --transport http: a stdio server is reachable only by "
            "the process that started it."
        )
    token = token_from_env(token_env) if token_env else None
    if target is None and http_tools is None and config is None:
        raise ValueError("Nothing to serve: give a TARGET, --http-tools FILE or --config FILE.")
    if callers is not None and transport == "stdio":
        raise ValueError("--callers only applies to --transport http: stdio has no tokens.")
    check_limits(budget, rate_limit)
    relay_info_records()  # tools' INFO records reach clients that ask for them
    settings = AppSettings(
        target=target if isinstance(target, str) or target is None else "mcp-toolkit",
        name=name,
        host=host,
        token_env=token_env,
        allowed_hosts=allowed_hosts,
        page_size=page_size,
        call_log=call_log,
        metrics=metrics,
        config=None if config is None else str(config),
        http_tools=None if http_tools is None else str(http_tools),
        allow_destructive=allow_destructive,
        callers=None if callers is None else str(callers),
        tool_search=tool_search,
        search_embedder=search_embedder,
        budget=budget,
        rate_limit=rate_limit,
        call_lines=True,  # in every mode, each worker writing its own
    )
    per_caller = budget is not None or rate_limit is not None  # callers told apart by the app
    if workers > 1 or metrics or ((call_log or per_caller) and transport == "http"):
        _check_scaled(target, transport, stateless, workers)
        _check_files(settings)  # fail here, once, rather than in every worker
        _say(_workers_line(settings, port, workers))
        run_workers(settings, port=port, workers=workers)
        return
    others = dataclasses.replace(settings.sources, target=None)
    check_sources(others)  # a broken file stops here, before anything starts
    registry = target if isinstance(target, ToolRegistry) else registry_for(settings.sources)
    search_by_meaning(registry, settings)
    observe(registry, settings)
    govern(registry, budget=budget, rate_limit=rate_limit)
    server_name = name or (target if isinstance(target, str) else "mcp-toolkit")
    server = build_server(
        registry,
        name=server_name,
        page_size=page_size,
        allow_destructive=allow_destructive,
        callers=load_callers(callers) if callers is not None else None,
        tool_search=tool_search,
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
            auth = f" (bearer token from ${token_env})" if token_env else ""
            where = f"at http://{host}:{port}/mcp"
            _say(serving_line(registry, server_name, where, tool_search=tool_search, note=auth))
            await serve_http(
                server,
                host=host,
                port=port,
                token=token,
                stateless=stateless,
                allowed_hosts=allowed_hosts,
            )

    anyio.run(main)


def _workers_line(settings: AppSettings, port: int, workers: int) -> str:
    """The banner with workers: the TARGET's tools counted here, the others opened by each."""
    registry = registry_for(settings.sources)  # imported already, by the check
    what = settings.target or settings.config or settings.http_tools or ""
    more = [
        f for f, v in (("--config", settings.config), ("--http-tools", settings.http_tools)) if v
    ]
    also = f", plus the tools of {' and '.join(more)} (each worker opens them)" if more else ""
    where = f"at http://{settings.host}:{port}/mcp"
    count = "worker" if workers == 1 else "workers"
    note = f" with {workers} {count}{also}"
    return serving_line(registry, str(what), where, tool_search=settings.tool_search, note=note)


def _check_scaled(
    target: str | ToolRegistry | None,
    transport: str,
    stateless: bool,
    workers: int,
) -> None:
    if transport != "http":
        raise ValueError("--workers and --metrics need --transport http.")
    if not stateless:
        raise ValueError(
            "--workers needs stateless HTTP (the default): a session lives in one process, and "
            "the next request of its client may reach another (so do --metrics, --call-log, "
            "--budget and --rate-limit over HTTP, which run the same app)."
        )
    if target is not None and not isinstance(target, str):
        raise ValueError(
            "Each worker imports the tools itself: give a module or file, not a registry."
        )
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, not {workers}.")


def _check_files(settings: AppSettings) -> None:
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


def run_workers(settings: AppSettings, *, port: int, workers: int, graceful_s: int = 30) -> None:
    """Start uvicorn with ``workers`` processes, each building the app from ``settings``.

    On SIGTERM/SIGINT each worker stops accepting connections and finishes the calls in flight
    (up to ``graceful_s`` seconds) before it exits.
    """
    os.environ.update(settings.to_env())
    # Every worker must open the requestState another one sealed (a client's next round may
    # reach any worker): one key for all, unless the operator set one for all replicas.
    os.environ.setdefault(STATE_KEY_ENV, secrets.token_urlsafe(32))
    with _shared_metrics(settings.metrics):
        _run_uvicorn(settings, port=port, workers=workers, graceful_s=graceful_s)


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


def _run_uvicorn(settings: AppSettings, *, port: int, workers: int, graceful_s: int) -> None:
    uvicorn.run(
        "adapters.mcp_server._factory:create_app",
        factory=True,
        host=settings.host,
        port=port,
        workers=workers,
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
