"""Where a :class:`~toolkit.records.call_log.CallLog` keeps its rows: one store per database kind.

A store is picked by the target's URL scheme: a file path or ``sqlite:///path`` is SQLite (the
standard library's), ``postgresql://`` (or ``postgres://``) is PostgreSQL (``psycopg`` 3, the
``[postgres]`` extra, imported only when such a URL is used). Other databases plug in with
:func:`register_call_store`.

Rule: a call-log target is shown only through :func:`display_target`. A URL's password (in its
user part or a ``password=`` parameter) never reaches a message, a log line or a repr, and
every error text a store passes on is cleaned of it with :func:`redact_target`.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, unquote, urlsplit

from toolkit.calls._redact import MASK, redact_text, scrub_secrets

__all__ = [
    "COLUMNS",
    "CallQuery",
    "CallStore",
    "Connection",
    "LoggedCall",
    "Row",
    "display_target",
    "open_call_store",
    "redact_target",
    "register_call_store",
    "target_secrets",
]

#: The columns of a row, in the order of :data:`Row`.
COLUMNS = (
    "call_id",
    "tool",
    "outcome",
    "code",
    "decision",
    "attempts",
    "duration_ms",
    "started_at",
    "caller",
    "host",
    "peer",
    "arguments",
    "answered_by",
    "full_size",
)

#: One call as written: the values of :data:`COLUMNS` (``arguments`` as JSON text).
Row = tuple[
    str,
    str,
    str,
    str | None,
    str,
    int,
    float,
    float,
    str,
    str,
    str | None,
    str,
    str | None,
    int | None,
]


@dataclass(frozen=True, slots=True)
class LoggedCall:
    """One row of the call log.

    Attributes:
        caller: Who called: the authenticated caller, a trusted proxy's header, the peer
            address, or the writing process (``host:pid``).
        host: The machine whose process ran the call.
        peer: The network address the request came from, when it came over HTTP.
        answered_by: The middleware that answered instead of the tool (``"budget"``,
            ``"cache"``…); ``None`` when the tool ran.
        full_size: Characters of the full result when the model read a cut of it.
    """

    call_id: str
    tool: str
    outcome: str
    code: str | None
    decision: str
    attempts: int
    duration_ms: float
    started_at: float
    caller: str
    arguments: Any
    host: str = ""
    peer: str | None = None
    answered_by: str | None = None
    full_size: int | None = None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> LoggedCall:
        """A call from the values of :data:`COLUMNS`, in that order."""
        values = dict(zip(COLUMNS, row, strict=True))
        values["arguments"] = _json(values["arguments"])
        values["host"] = values["host"] or ""
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True, slots=True)
class CallQuery:
    """Which calls to read: every given filter must match; newest first, at most ``limit``."""

    tool: str | None = None
    code: str | None = None
    outcome: str | None = None
    caller: str | None = None
    host: str | None = None
    since: float | None = None
    until: float | None = None
    limit: int = 50

    def conditions(self, mark: str) -> tuple[list[str], list[Any]]:
        """SQL conditions and their parameters, with ``mark`` as the placeholder."""
        where: list[str] = []
        params: list[Any] = []
        for column in ("tool", "outcome", "caller", "host"):
            value = getattr(self, column)
            if value is not None:
                where.append(f"{column} = {mark}")
                params.append(value)
        if self.code is not None:
            if self.code.lower() == "ok":
                where.append("code IS NULL")
            else:
                where.append(f"code = {mark}")
                params.append(self.code.upper())
        if self.since is not None:
            where.append(f"started_at >= {mark}")
            params.append(self.since)
        if self.until is not None:
            where.append(f"started_at < {mark}")
            params.append(self.until)
        return where, params


class CallStore(Protocol):
    """A database the call log writes to; used by one writer thread at a time.

    Every method may raise: the call log counts and logs the failure (its message passed
    through :func:`redact_target`) and never lets it reach a tool call.
    """

    #: How messages name the store (no password).
    name: str

    def open(self) -> None:
        """Connect and create the table if it is missing."""

    def write(self, rows: list[Row]) -> None:
        """Store ``rows`` in one transaction."""

    def prune(self, retention_days: float | None, max_rows: int | None) -> None:
        """Delete rows older than ``retention_days`` and all but the newest ``max_rows``."""

    def read(self, query: CallQuery) -> list[LoggedCall]:
        """The calls ``query`` asks for, newest first (its own connection, read only)."""

    def close(self) -> None:
        """Close the connection, if any (the next :meth:`open` connects again)."""


class Connection(Protocol):
    """The part of a DB-API connection (``?`` placeholders) the SQLite store uses."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...
    def executemany(self, sql: str, parameters: Any, /) -> Any: ...
    def commit(self) -> None: ...
    def close(self) -> None: ...


#: Makes the store of a target: ``(target, busy_timeout_seconds) -> CallStore``.
StoreFactory = Callable[[str, float], CallStore]

_FACTORIES: dict[str, StoreFactory | str] = {
    "sqlite": "adapters.stores.sqlite:SqliteCallStore",
    "postgresql": "adapters.stores.postgres:PostgresCallStore",
    "postgres": "adapters.stores.postgres:PostgresCallStore",
}

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def register_call_store(scheme: str, factory: StoreFactory) -> None:
    """Use ``factory`` for call-log URLs starting with ``scheme://`` (replacing any earlier one).

    Args:
        scheme: The URL scheme, such as ``"mysql"`` (any ``+driver`` suffix is ignored).
        factory: Called with the target and the busy timeout; returns a :class:`CallStore`.
    """
    _FACTORIES[scheme.lower().split("+", 1)[0]] = factory


def _scheme(target: str) -> str:
    match = _SCHEME.match(target)
    return match[1].lower().split("+", 1)[0] if match else "sqlite"


def open_call_store(
    target: str | os.PathLike[str] | None,
    busy_timeout: float = 2.0,
    *,
    connect: Callable[[], Connection] | None = None,
) -> CallStore:
    """The store of ``target`` (not yet connected).

    Args:
        target: A file path, ``sqlite:///path`` or another registered scheme's URL.
        busy_timeout: Seconds a write waits for another process's lock.
        connect: Instead of ``target``: a function returning a DB-API connection with ``?``
            placeholders, written to with SQLite-compatible statements.

    Raises:
        ValueError: No store is registered for the URL's scheme, or the one that is needs a
            package that is not installed (the message names the extra).
    """
    text = "" if target is None else os.fspath(target)
    scheme = "sqlite" if connect is not None else _scheme(text)
    factory = _FACTORIES.get(scheme)
    if factory is None:
        raise ValueError(
            f"Call log {display_target(text)}: no store for {scheme}:// URLs. Use a file path, "
            "sqlite:///path or postgresql://..., or register one with "
            "toolkit.records.store.register_call_store."
        )
    if isinstance(factory, str):
        module, _, name = factory.partition(":")
        try:
            factory = getattr(importlib.import_module(module), name)
        except ImportError as exc:
            raise ValueError(
                f"Call log {display_target(text)} needs {exc.name or 'a driver'}: "
                "pip install 'mcp-toolkit[postgres]'."
            ) from None
    make: Any = factory  # the SQLite store also takes a connect= function
    store: CallStore = (
        make(None, busy_timeout, connect=connect)
        if connect is not None
        else make(text, busy_timeout)
    )
    return store


def target_secrets(target: str) -> list[str]:
    """The password of a URL target (user part or ``password=`` parameter), as written and decoded."""
    if "://" not in target:
        return []
    found: list[str] = []
    try:
        parts = urlsplit(target)
        found += [parts.password or ""]
        found += [v for k, v in parse_qsl(parts.query) if k.lower() == "password"]
    except ValueError:  # malformed: whatever sits between "user:" and "@"
        pass
    raw = re.search(r"://[^/@?#]*?:([^@/?#]*)@", target)
    if raw:
        found.append(raw[1])
    found += re.findall(r"(?i)[?&]password=([^&#]*)", target)
    found += [unquote(s) for s in found]
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact_target(text: str, target: str) -> str:
    """``text`` (an error message, say) with the password of ``target`` masked."""
    if "://" not in target:
        return text
    text = text.replace(target, display_target(target))
    return scrub_secrets(redact_text(text, target_secrets(target)))


def display_target(target: str | os.PathLike[str]) -> str:
    """How a call-log target may be shown: a path as is, a URL with its password masked.

    Example:
        >>> display_target("postgresql://app:s3cret@db:5432/calls?sslmode=require")
        'postgresql://app:***@db:5432/calls?sslmode=require'
    """
    text = os.fspath(target)
    if "://" not in text:
        return text
    for secret in target_secrets(text):
        text = text.replace(f":{secret}@", f":{MASK}@")
    return scrub_secrets(text)


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
