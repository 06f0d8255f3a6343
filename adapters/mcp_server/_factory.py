"""An importable ASGI app factory that reads its configuration from the environment.

Any ASGI server can start it, with as many workers or replicas as wanted, because the
stateless HTTP mode lets any process answer any request::

    TOOLKIT_TARGET=myapp.tools uvicorn --factory adapters.mcp_server:create_app --workers 4
    TOOLKIT_TARGET=myapp.tools gunicorn -k uvicorn.workers.UvicornWorker -w 4 \\
        'adapters.mcp_server:create_app()'

``toolkit serve --transport http --workers N`` sets these variables and starts uvicorn.
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import os
import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.mcp_server._auth import token_from_env
from adapters.mcp_server._callers import load_callers
from adapters.mcp_server._embedder import load_embedder
from adapters.mcp_server._http import DEFAULT_MAX_BODY_BYTES, http_app
from adapters.mcp_server._log_relay import relay_info_records
from adapters.mcp_server._server import build_server
from adapters.sources import Sources, check_sources, open_sources, registry_for
from toolkit.call_log import CALL_LOG_ENV, CallLog
from toolkit.options import CallOptions
from toolkit.registry import ToolRegistry
from toolkit.result import CallRecord

__all__ = ["AppSettings", "create_app", "observe"]

log = logging.getLogger("toolkit.server")

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    """A yes/no variable. Rule: a value that is neither is refused, never read as off."""
    value = env.get(name)
    if value is None or not value.strip():
        return default
    word = value.strip().lower()
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise ValueError(
        f"${name}={value!r} is neither on nor off: use one of "
        f"{', '.join(sorted(_TRUE))} or {', '.join(sorted(_FALSE))}."
    )


def _names(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(n.strip() for n in env.get(name, "").split(",") if n.strip())


def _int(env: Mapping[str, str], name: str, default: int | None) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"${name}={value!r} is not a whole number.") from None


@dataclass(frozen=True)
class AppSettings:
    """What :func:`create_app` reads from the environment (``TOOLKIT_*`` variables).

    Attributes:
        target: ``TOOLKIT_TARGET``: module, package, ``module:attribute`` or file (required
            unless a config or HTTP tools file is given).
        name: ``TOOLKIT_NAME``: server name shown to clients (default: the target).
        host: ``TOOLKIT_HOST``: the bind address, for the ``Host`` check (default 127.0.0.1).
        token_env: ``TOOLKIT_TOKEN_ENV``: the variable holding the bearer token clients send.
        allowed_hosts: ``TOOLKIT_ALLOWED_HOSTS``: more accepted ``Host`` values, comma-separated.
        page_size: ``TOOLKIT_PAGE_SIZE``: tools per ``tools/list`` page.
        max_body_bytes: ``TOOLKIT_MAX_BODY_BYTES``: larger request bodies get 413.
        call_log: ``TOOLKIT_CALL_LOG``: a SQLite file (or ``sqlite:///`` URL), or a
            ``postgresql://`` URL that every worker and replica writes to, for the call log.
        metrics: ``TOOLKIT_METRICS=1``: a Prometheus scrape endpoint at ``/metrics``.
        telemetry: ``TOOLKIT_OTEL`` (default on): spans and metrics to OpenTelemetry's global
            providers when ``opentelemetry-api`` is installed.
        trace_arguments: ``TOOLKIT_OTEL_ARGUMENTS=1``: redacted arguments on the spans.
        caller_header: ``TOOLKIT_CALLER_HEADER``: a header set by a trusted proxy (such as
            ``X-Forwarded-User``) naming the caller in the call log; default: the peer address.
            With ``callers``, the authenticated caller's name is logged instead.
        config: ``TOOLKIT_CONFIG``: an MCP config file; its remote servers' tools (each worker
            keeps its own connections) and its ``httpTools`` are served too.
        http_tools: ``TOOLKIT_HTTP_TOOLS``: a file of HTTP endpoint tools served too.
        allow_destructive: ``TOOLKIT_ALLOW_DESTRUCTIVE``: tools needing approval that run
            without asking, comma-separated (``*``: all).
        callers: ``TOOLKIT_CALLERS``: a callers file mapping bearer tokens to callers; every
            request must carry one of its tokens.
        tool_search: ``TOOLKIT_TOOL_SEARCH``: list a search tool, a call tool and this many
            most-used tools instead of every tool.
        search_embedder: ``TOOLKIT_SEARCH_EMBEDDER``: ``module:attribute`` of an embedder (or
            of a factory of one) that ranks the search tool by meaning as well as words.
        call_lines: ``TOOLKIT_CALL_LINES=1``: one line per call on stderr (tool, code,
            milliseconds, ref), as ``toolkit serve`` prints; each worker writes its own.
    """

    target: str | None
    name: str | None = None
    host: str = "127.0.0.1"
    token_env: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    page_size: int | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    call_log: str | None = field(default=None, repr=False)  # a URL may hold a password
    metrics: bool = False
    telemetry: bool = True
    trace_arguments: bool = False
    caller_header: str | None = None
    config: str | None = None
    http_tools: str | None = None
    allow_destructive: tuple[str, ...] = ()
    callers: str | None = None
    tool_search: int | None = None
    search_embedder: str | None = None
    call_lines: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AppSettings:
        """Read the settings from ``env`` (default: ``os.environ``).

        Raises:
            ValueError: ``TOOLKIT_TARGET`` is missing or a number is not a number.
        """
        env = os.environ if env is None else env
        target = env.get("TOOLKIT_TARGET", "").strip() or None
        config = env.get("TOOLKIT_CONFIG", "").strip() or None
        http_tools = env.get("TOOLKIT_HTTP_TOOLS", "").strip() or None
        if target is None and config is None and http_tools is None:
            raise ValueError(
                "Set TOOLKIT_TARGET to the tools to serve (a module, package, module:attribute "
                "or file), e.g. TOOLKIT_TARGET=myapp.tools; or TOOLKIT_CONFIG / "
                "TOOLKIT_HTTP_TOOLS to a config or HTTP tools file."
            )
        return cls(
            target=target,
            config=config,
            http_tools=http_tools,
            allow_destructive=_names(env, "TOOLKIT_ALLOW_DESTRUCTIVE"),
            callers=env.get("TOOLKIT_CALLERS", "").strip() or None,
            name=env.get("TOOLKIT_NAME") or None,
            host=env.get("TOOLKIT_HOST") or "127.0.0.1",
            token_env=env.get("TOOLKIT_TOKEN_ENV") or None,
            allowed_hosts=_names(env, "TOOLKIT_ALLOWED_HOSTS"),
            page_size=_int(env, "TOOLKIT_PAGE_SIZE", None),
            max_body_bytes=_int(env, "TOOLKIT_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)
            or DEFAULT_MAX_BODY_BYTES,
            call_log=env.get(CALL_LOG_ENV) or None,
            metrics=_flag(env, "TOOLKIT_METRICS"),
            telemetry=_flag(env, "TOOLKIT_OTEL", True),
            trace_arguments=_flag(env, "TOOLKIT_OTEL_ARGUMENTS"),
            caller_header=env.get("TOOLKIT_CALLER_HEADER") or None,
            tool_search=_int(env, "TOOLKIT_TOOL_SEARCH", None),
            search_embedder=env.get("TOOLKIT_SEARCH_EMBEDDER", "").strip() or None,
            call_lines=_flag(env, "TOOLKIT_CALL_LINES"),
        )

    @property
    def sources(self) -> Sources:
        """The tool sources these settings name (see :data:`adapters.sources.SOURCES`)."""
        return Sources(target=self.target, http_tools=self.http_tools, config=self.config)

    def to_env(self) -> dict[str, str]:
        """The variables that make :meth:`from_env` give these settings back."""
        env = {
            "TOOLKIT_HOST": self.host,
            "TOOLKIT_MAX_BODY_BYTES": str(self.max_body_bytes),
            "TOOLKIT_METRICS": "1" if self.metrics else "0",
            "TOOLKIT_OTEL": "1" if self.telemetry else "0",
            "TOOLKIT_OTEL_ARGUMENTS": "1" if self.trace_arguments else "0",
            "TOOLKIT_CALL_LINES": "1" if self.call_lines else "0",
        }
        optional = {
            "TOOLKIT_TARGET": self.target,
            "TOOLKIT_CONFIG": self.config,
            "TOOLKIT_HTTP_TOOLS": self.http_tools,
            "TOOLKIT_ALLOW_DESTRUCTIVE": ",".join(self.allow_destructive) or None,
            "TOOLKIT_CALLERS": self.callers,
            "TOOLKIT_NAME": self.name,
            "TOOLKIT_TOKEN_ENV": self.token_env,
            "TOOLKIT_ALLOWED_HOSTS": ",".join(self.allowed_hosts) or None,
            "TOOLKIT_PAGE_SIZE": None if self.page_size is None else str(self.page_size),
            CALL_LOG_ENV: self.call_log,
            "TOOLKIT_CALLER_HEADER": self.caller_header,
            "TOOLKIT_TOOL_SEARCH": None if self.tool_search is None else str(self.tool_search),
            "TOOLKIT_SEARCH_EMBEDDER": self.search_embedder,
        }
        env.update({k: v for k, v in optional.items() if v is not None})
        return env


def search_by_meaning(registry: ToolRegistry, settings: AppSettings) -> None:
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
    """One line per call on stderr: tool, outcome code, time and the ref messages quote."""
    code = record.code.value if record.code else "ok"
    line = f"call {record.tool} {code} {record.duration_ms:.0f} ms ref {record.call_id}\n"
    # stdout carries the protocol on stdio; one write per line keeps workers' lines whole.
    sys.stderr.write(line)
    sys.stderr.flush()


def observe(registry: ToolRegistry, settings: AppSettings) -> tuple[ASGIApp | None, CallLog | None]:
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
    settings: AppSettings | None = None, *, options: CallOptions | None = None
) -> ASGIApp:
    """The stateless streamable-HTTP app for the tools the environment names.

    Args:
        settings: Instead of reading ``TOOLKIT_*`` variables (see :class:`AppSettings`).
        options: Per-call options for every ``tools/call`` (see :func:`build_server`).

    Raises:
        ValueError: The environment is incomplete or wrong (the message names the variable).
        RegistrationError: The target holds no tools or a tool is broken.
    """
    settings = settings or AppSettings.from_env()
    relay_info_records()
    token = token_from_env(settings.token_env) if settings.token_env else None
    sources = settings.sources
    # The other sources open with the app; a broken file fails here, as the TARGET does.
    others = dataclasses.replace(sources, target=None)
    check_sources(others)
    registry = registry_for(sources)
    search_by_meaning(registry, settings)
    metrics, call_log = observe(registry, settings)
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
