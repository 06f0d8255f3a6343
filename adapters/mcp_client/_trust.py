"""What a remote server says about its tools reaches a model only as trusted: :class:`TrustGate`.

Every listing of a server's tools (first connect, reconnect, ``list_changed``) passes here
before any registry, toolset, agent or search sees it:

* Each tool is cleaned (:mod:`._sanitize`): hidden characters, escapes and comments removed.
* When the lock has the server, a tool whose definition no longer matches its pin is
  quarantined, and a tool the lock does not know is held until someone trusts it (unless the
  config says ``"new_tools": "trust"``). Neither is offered to anything; a call that still
  reaches one (a tool bound before the change) is ``DENIED`` with what changed. A tool the
  server no longer lists simply goes: removal needs no approval.
* When the lock does not have the server, it works as before, unless its config says
  ``"trust": "first-use"`` (what it lists first is pinned) or ``"trust": "locked"`` (nothing
  is offered until ``toolkit mcp trust``).

Each change is logged once, as a warning naming the commands that review and accept it.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import mcp_types

from adapters.mcp_client._changes import changes, shown
from adapters.mcp_client._config import McpServerConfig, selected
from adapters.mcp_client._lock import Pin, ToolLock
from adapters.mcp_client._sanitize import clean_tool
from toolkit.errors import ErrorCode, ToolError

__all__ = ["Admitted", "Held", "TrustGate"]

logger = logging.getLogger("adapters.mcp_client")

Reason = Literal["changed", "new", "unlocked"]


@dataclass(frozen=True)
class Admitted:
    """A tool that may be offered: cleaned for models, with the name the wire needs."""

    tool: mcp_types.Tool
    wire_name: str


@dataclass(frozen=True)
class Held:
    """A tool kept from every model until someone trusts it.

    Attributes:
        server: The server's name in the config.
        tool: The tool's name on the server.
        reason: ``changed`` (its definition no longer matches the lock), ``new`` (listed after
            the server was trusted) or ``unlocked`` (the config asks for a lock, which has no
            entry for it).
        changes: Where the definition changed (``changed`` only).
        hidden: Kinds of hidden content its current text had (removed where it is shown).
        pin: The trusted definition (``changed`` only).
        current: The definition as the server lists it now.
        config: The config file, as the commands in the message name it.
    """

    server: str
    tool: str
    reason: Reason
    changes: tuple[str, ...]
    hidden: frozenset[str]
    pin: Pin | None
    current: Pin
    config: str

    def command(self, verb: str) -> str:
        """The ``toolkit mcp diff`` / ``trust`` command for this tool."""
        words = ["toolkit", "mcp", verb, self.config, self.server]
        if self.tool.isascii() and self.tool.isprintable():
            words.append(self.tool)
        return " ".join(shlex.quote(w) for w in words)

    def message(self) -> str:
        """What happened and the commands to review and accept it."""
        name = f"Tool {shown(self.tool)} of MCP server {shown(self.server)}"
        if self.reason == "changed":
            what = (
                f"{name} is quarantined: its definition changed since it was trusted "
                f"({'; '.join(self.changes)})."
            )
        elif self.reason == "new":
            what = f"{name} is held: the server listed it after its tools were trusted."
        else:
            what = f"{name} is held: its config says 'trust': 'locked' and the lock lacks it."
        if self.hidden:
            what += f" Its text hides {', '.join(sorted(self.hidden))}."
        return (
            f"{what} Review it with '{self.command('diff')}' and accept it with "
            f"'{self.command('trust')}'."
        )

    def error(self) -> ToolError:
        """The ``DENIED`` error of a call to this tool."""
        return ToolError(self.message(), code=ErrorCode.DENIED, retryable=False)


@dataclass
class _Verdict:
    listing: object
    admitted: list[Admitted]
    held: dict[str, Held]


class TrustGate:
    """Checks every listing of a pool's servers against a :class:`ToolLock`.

    Args:
        lock: The lock (a file, or memory).
        configs: The pool's servers by name.
        config_file: How commands in messages name the config file.
    """

    def __init__(
        self, lock: ToolLock, configs: Mapping[str, McpServerConfig], *, config_file: str
    ) -> None:
        self.lock = lock
        self._configs = configs
        self._config_file = config_file
        self._verdicts: dict[str, _Verdict] = {}
        self._warned: set[tuple[str, str, str]] = set()
        self._stamp = self._lock_stamp()

    def admit(self, server: str, listing: Sequence[mcp_types.Tool]) -> list[Admitted]:
        """The tools of ``listing`` that may be offered, after include/exclude, cleaned.

        The answer for one listing object is kept until the server lists again.
        """
        verdict = self._verdicts.get(server)
        if verdict is None or verdict.listing is not listing:
            verdict = self._judge(server, listing)
            self._verdicts[server] = verdict
        return verdict.admitted

    def held(self, server: str) -> list[Held]:
        """The tools of ``server`` held at its last listing."""
        verdict = self._verdicts.get(server)
        return list(verdict.held.values()) if verdict else []

    def guard(self, server: str, current: Callable[[], Sequence[mcp_types.Tool] | None]) -> Guard:
        """A check run before each call of a tool of ``server``: raises ``DENIED`` when the
        server's current listing holds the tool.

        Args:
            server: The server's name in the config.
            current: The server's latest listing (``None`` before the first).
        """

        def check(tool: str) -> None:
            listing = current()
            if listing is None:
                return
            self.admit(server, listing)
            held = self._verdicts[server].held.get(tool)
            if held is not None:
                raise held.error()

        return check

    def forget(self, server: str) -> None:
        """Judge ``server``'s next listing afresh (its pins changed)."""
        self._verdicts.pop(server, None)

    def _judge(self, server: str, listing: Sequence[mcp_types.Tool]) -> _Verdict:
        config = self._configs[server]
        self.reload()
        tools = [t for t in listing if selected(t.name, config)]
        pins = self.lock.pins(server)
        if pins is None and config.trust == "first-use":
            pins = {t.name: Pin.of(t) for t in tools}
            self.lock.pin(server, pins)
            self._stamp = self._lock_stamp()
        admitted: list[Admitted] = []
        held: dict[str, Held] = {}
        fresh: dict[str, Pin] = {}
        for tool in tools:
            cleaned, hidden = clean_tool(tool)
            outcome = self._outcome(server, config, pins, tool)
            if isinstance(outcome, Held):
                outcome = replace(outcome, hidden=hidden)
                held[tool.name] = outcome
                self._warn(outcome)
                continue
            if outcome is not None:
                fresh[tool.name] = outcome
            if hidden:
                self._warn_hidden(server, tool, hidden)
            admitted.append(Admitted(cleaned, tool.name))
        if fresh:
            self.lock.pin(server, fresh)
            self._stamp = self._lock_stamp()
        return _Verdict(listing, admitted, held)

    def _outcome(
        self,
        server: str,
        config: McpServerConfig,
        pins: dict[str, Pin] | None,
        tool: mcp_types.Tool,
    ) -> Held | Pin | None:
        """``None``: offer it; a :class:`Pin`: offer it and pin it; a :class:`Held`: hold it."""
        if pins is None and config.trust != "locked":
            return None
        current = Pin.of(tool)
        pin = (pins or {}).get(tool.name)
        if pin is not None and pin.sha256 == current.sha256:
            return None
        if pin is None and pins is not None and config.new_tools == "trust":
            return current
        reason: Reason = "changed" if pin else "new" if pins is not None else "unlocked"
        found = tuple(changes(pin.definition, current.definition)) if pin else ()
        return Held(server, tool.name, reason, found, frozenset(), pin, current, self._config_file)

    def _warn(self, held: Held) -> None:
        key = (held.server, held.tool, held.current.sha256)
        if key not in self._warned:
            self._warned.add(key)
            logger.warning("%s", held.message())

    def _warn_hidden(self, server: str, tool: mcp_types.Tool, hidden: frozenset[str]) -> None:
        key = (server, tool.name, "hidden:" + Pin.of(tool).sha256)
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(
                "removed %s from the definition of tool %s of MCP server %s before any model "
                "reads it; review it with 'toolkit mcp diff %s %s'",
                ", ".join(sorted(hidden)),
                shown(tool.name),
                shown(server),
                self._config_file,
                shlex.quote(server),
            )

    def _lock_stamp(self) -> tuple[int, int] | None:
        path = self.lock.path
        try:
            stat = path.stat() if path is not None else None
        except OSError:
            return None
        return (stat.st_mtime_ns, stat.st_size) if stat else None

    def reload(self) -> None:
        """Read the lock file again when someone else (``toolkit mcp trust``) wrote it."""
        stamp = self._lock_stamp()
        if stamp != self._stamp:
            self.lock = ToolLock(self.lock.path)
            self._stamp = stamp


Guard = Callable[[str], None]
