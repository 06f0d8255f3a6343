"""``ServeSettings``: everything a served registry is started with, in one frozen value.

Each field carries its command-line flag, its ``TOOLKIT_*`` environment variable and its help
(:class:`Knob`), so ``toolkit serve``'s options, :meth:`ServeSettings.from_env` (what
:func:`create_app` and every worker read) and :meth:`ServeSettings.to_env` (what
``toolkit serve --workers N`` hands its workers) are all derived from this one definition. A
field that names a tool source takes its flag from its row of :data:`adapters.sources.SOURCES`.
A new setting is one field here, and the step that reads it.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from adapters.mcp_server._http import DEFAULT_MAX_BODY_BYTES
from adapters.sources import SOURCES, Sources
from toolkit.records.call_log import CALL_LOG_ENV

__all__ = ["Knob", "ServeSettings", "knobs"]

TransportName = Literal["stdio", "http"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True, slots=True)
class Knob:
    """How a person sets one field of :class:`ServeSettings`.

    Attributes:
        name: The field.
        flag: Its command-line spelling (``"--call-log"``; ``"TARGET"`` for the argument);
            ``None``: not on the command line.
        env: Its ``TOOLKIT_*`` variable; ``None``: not read from the environment (a
            command-line-only choice such as the port).
        help: One line for ``--help`` and for the reference.
        metavar: What ``--help`` shows for the value.
    """

    name: str
    flag: str | None
    env: str | None
    help: str
    metavar: str | None = None


def _knob(
    *,
    env: str | None,
    help: str,
    flag: str | None = None,
    source: str | None = None,
    metavar: str | None = None,
) -> dict[str, Any]:
    """A field's metadata: its flag (or its source row's), its variable and its help."""
    return {"knob": {"flag": flag, "source": source, "env": env, "help": help, "metavar": metavar}}


def _source_flag(setting: str) -> str:
    """The flag the source table's rows for ``setting`` name (one flag per setting)."""
    flags = {row.flag for row in SOURCES if row.setting == setting}
    if len(flags) != 1:
        raise LookupError(f"the source table names {sorted(flags)} for {setting!r}: give one")
    return flags.pop()


@dataclass(frozen=True)
class ServeSettings:
    """How a registry is served: its sources, transport, limits, call log and telemetry."""

    target: str | None = field(
        default=None,
        metadata=_knob(
            source="target",
            env="TOOLKIT_TARGET",
            help="Module, package, module:attribute or file.",
        ),
    )
    transport: TransportName = field(
        default="stdio",
        metadata=_knob(
            flag="--transport",
            env=None,
            help="stdio (for desktop clients) or http (streamable HTTP at /mcp).",
        ),
    )
    host: str = field(
        default="127.0.0.1",
        metadata=_knob(flag="--host", env="TOOLKIT_HOST", help="HTTP bind address."),
    )
    port: int = field(default=8000, metadata=_knob(flag="--port", env=None, help="HTTP port."))
    token_env: str | None = field(
        default=None,
        metadata=_knob(
            flag="--token-env",
            metavar="VAR",
            env="TOOLKIT_TOKEN_ENV",
            help="Env variable holding the bearer token clients must send.",
        ),
    )
    config: str | None = field(
        default=None,
        metadata=_knob(
            source="config",
            metavar="FILE",
            env="TOOLKIT_CONFIG",
            help="MCP config file whose servers' tools (and httpTools) are served too.",
        ),
    )
    name: str | None = field(
        default=None,
        metadata=_knob(flag="--name", env="TOOLKIT_NAME", help="Server name shown to clients."),
    )
    page_size: int | None = field(
        default=None,
        metadata=_knob(
            flag="--page-size", env="TOOLKIT_PAGE_SIZE", help="Tools per tools/list page."
        ),
    )
    stateful: bool = field(
        default=False,
        metadata=_knob(
            flag="--stateful", env=None, help="Keep HTTP sessions (default: stateless)."
        ),
    )
    allowed_hosts: tuple[str, ...] = field(
        default=(),
        metadata=_knob(
            flag="--allow-host",
            metavar="HOST",
            env="TOOLKIT_ALLOWED_HOSTS",
            help="Extra accepted Host header (repeatable).",
        ),
    )
    workers: int = field(
        default=1,
        metadata=_knob(
            flag="--workers",
            env=None,
            help="HTTP worker processes (stateless HTTP; one per core).",
        ),
    )
    call_log: str | None = field(
        default=None,
        metadata=_knob(
            flag="--call-log",
            metavar="FILE|URL",
            env=CALL_LOG_ENV,
            help="SQLite file or postgresql:// URL every call is written to (toolkit calls).",
        ),
        repr=False,  # a URL may hold a password
    )
    metrics: bool = field(
        default=False,
        metadata=_knob(
            flag="--metrics", env="TOOLKIT_METRICS", help="Prometheus metrics at /metrics (HTTP)."
        ),
    )
    http_tools: str | None = field(
        default=None,
        metadata=_knob(
            source="http_tools",
            metavar="FILE",
            env="TOOLKIT_HTTP_TOOLS",
            help="File of HTTP endpoint tools ({'httpTools': ...}).",
        ),
    )
    allow_destructive: tuple[str, ...] = field(
        default=(),
        metadata=_knob(
            flag="--allow-destructive",
            metavar="TOOL",
            env="TOOLKIT_ALLOW_DESTRUCTIVE",
            help="Run this tool needing approval without asking (repeatable; * = all).",
        ),
    )
    callers: str | None = field(
        default=None,
        metadata=_knob(
            flag="--callers",
            metavar="FILE",
            env="TOOLKIT_CALLERS",
            help="File mapping bearer tokens to callers (HTTP).",
        ),
    )
    tool_search: int | None = field(
        default=None,
        metadata=_knob(
            flag="--tool-search",
            env="TOOLKIT_TOOL_SEARCH",
            metavar="K",
            help="List a search tool and a call tool, plus the K most used tools (0: none), "
            "instead of every tool.",
        ),
    )
    search_embedder: str | None = field(
        default=None,
        metadata=_knob(
            flag="--search-embedder",
            env="TOOLKIT_SEARCH_EMBEDDER",
            metavar="MODULE:ATTR",
            help="Rank --tool-search by meaning too: a function from texts to vectors (or a "
            "function without arguments that returns one), e.g. myapp.search:embed.",
        ),
    )
    budget: str | None = field(
        default=None,
        metadata=_knob(
            flag="--budget",
            env="TOOLKIT_BUDGET",
            metavar="LIMITS",
            help="Each caller's budget per window, e.g. calls=100,repeats=3,window=60 "
            "(see docs/middleware.md); each worker counts its own.",
        ),
    )
    rate_limit: str | None = field(
        default=None,
        metadata=_knob(
            flag="--rate-limit",
            env="TOOLKIT_RATE_LIMIT",
            metavar="LIMITS",
            help="Calls per caller and per tool in a window, e.g. caller=60,tool.search=10,"
            "window=60; each worker counts its own.",
        ),
    )
    caller_header: str | None = field(
        default=None,
        metadata=_knob(
            flag="--caller-header",
            env="TOOLKIT_CALLER_HEADER",
            help="Header a trusted proxy sets naming the caller in the call log (default: the "
            "peer address; with --callers, the authenticated caller).",
        ),
    )
    max_body_bytes: int = field(
        default=DEFAULT_MAX_BODY_BYTES,
        metadata=_knob(
            env="TOOLKIT_MAX_BODY_BYTES",
            help="Larger request bodies get 413.",
        ),
    )
    telemetry: bool = field(
        default=True,
        metadata=_knob(
            env="TOOLKIT_OTEL",
            help="Spans and metrics to OpenTelemetry's global providers, when installed.",
        ),
    )
    trace_arguments: bool = field(
        default=False,
        metadata=_knob(env="TOOLKIT_OTEL_ARGUMENTS", help="Redacted arguments on the spans."),
    )
    call_lines: bool = field(
        default=False,
        metadata=_knob(
            env="TOOLKIT_CALL_LINES",
            help="One line per call on stderr (tool, code, milliseconds, ref); each worker "
            "writes its own. toolkit serve always sets it.",
        ),
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServeSettings:
        """The settings the ``TOOLKIT_*`` variables of ``env`` (default: ``os.environ``) give.

        Raises:
            ValueError: No source is named, or a value does not read as its field's kind.
        """
        env = os.environ if env is None else env
        values = {
            knob.name: _read(env, knob.env, hint)
            for knob, hint in _env_knobs()
            if env.get(knob.env, "").strip()
        }
        settings = cls(**values)
        if not settings.sources:
            raise ValueError(
                "Set TOOLKIT_TARGET to the tools to serve (a module, package, module:attribute "
                "or file), e.g. TOOLKIT_TARGET=myapp.tools; or TOOLKIT_CONFIG / "
                "TOOLKIT_HTTP_TOOLS to a config or HTTP tools file."
            )
        return settings

    def to_env(self) -> dict[str, str]:
        """The variables that make :meth:`from_env` give these settings back."""
        out: dict[str, str] = {}
        for knob, _ in _env_knobs():
            text = _write(getattr(self, knob.name))
            if text is not None:
                out[knob.env] = text
        return out

    @property
    def sources(self) -> Sources:
        """The tool sources these settings name (see :data:`adapters.sources.SOURCES`)."""
        return Sources(target=self.target, http_tools=self.http_tools, config=self.config)

    def replace(self, **changes: Any) -> ServeSettings:
        """A copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


@functools.cache
def knobs() -> tuple[tuple[Knob, Any], ...]:
    """Every field's :class:`Knob` with its type, in the order of the fields."""
    hints = typing.get_type_hints(ServeSettings)
    found = []
    for f in dataclasses.fields(ServeSettings):
        spelled = dict(f.metadata["knob"])
        source = spelled.pop("source")
        if source is not None:
            spelled["flag"] = _source_flag(source)
        found.append((Knob(name=f.name, **spelled), hints[f.name]))
    return tuple(found)


def _env_knobs() -> Iterator[tuple[_EnvKnob, Any]]:
    """The knobs read from the environment, with their types."""
    for knob, hint in knobs():
        if knob.env is not None:
            yield _EnvKnob(knob.name, knob.env), hint


class _EnvKnob(typing.NamedTuple):
    name: str
    env: str


def _read(env: Mapping[str, str], name: str, hint: Any) -> Any:
    """The value of variable ``name`` as a field of type ``hint``."""
    value = env[name].strip()
    kinds = set(typing.get_args(hint)) or {hint}
    if hint is bool:
        word = value.lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        # Rule: a value that is neither on nor off is refused, never read as off.
        raise ValueError(
            f"${name}={env[name]!r} is neither on nor off: use one of "
            f"{', '.join(sorted(_TRUE))} or {', '.join(sorted(_FALSE))}."
        )
    if int in kinds:
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"${name}={env[name]!r} is not a whole number.") from None
    if typing.get_origin(hint) is tuple:
        return tuple(n.strip() for n in value.split(",") if n.strip())
    return value


def _write(value: Any) -> str | None:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple):
        return ",".join(value) or None
    return None if value is None else str(value)
