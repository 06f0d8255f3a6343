"""The lock of remote tool definitions: :class:`ToolLock`, kept in ``mcp.lock.json``.

Per server and tool it holds a SHA-256 of the tool's definition (what a model reads and what
a policy relies on: name, title, description, input and output schema, annotations) and the
definition itself, so a change can be shown against what was trusted. The hash is taken over
canonical JSON: keys sorted, no whitespace, integral numbers as integers, non-ASCII escaped, so
the order of keys, the whitespace of the wire and the paging of the listing never matter, while
any change of a character does (an invisible one included)::

    {"version": 1, "servers": {"github": {"search_issues": {"sha256": "…",
                                                            "definition": {…}}}}}

The file is written whole to a temporary file and renamed over the old one; each write first
reads the file again, so two processes trusting different servers do not undo each other.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types

from adapters.mcp_client._config import McpConfigError

__all__ = ["LOCK_FIELDS", "Pin", "ToolLock", "canonical_json", "definition", "lock_beside"]

#: The parts of a tool that are pinned, in their wire spelling.
LOCK_FIELDS = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")

_VERSION = 1


def definition(tool: mcp_types.Tool) -> dict[str, Any]:
    """The pinned parts of ``tool`` as plain JSON (absent and empty annotations alike)."""
    data = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    out = {key: _normal(data[key]) for key in LOCK_FIELDS if key in data}
    if not out.get("annotations"):
        out.pop("annotations", None)
    return out


def _normal(value: Any) -> Any:
    """``1.0`` and ``1`` are one JSON number; everything else stays as it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, no whitespace, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def digest(pinned: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of a definition's canonical JSON."""
    return hashlib.sha256(canonical_json(pinned).encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Pin:
    """One trusted tool definition.

    Attributes:
        sha256: The hash of :attr:`definition`'s canonical JSON.
        definition: The definition as it was trusted (for showing what changed).
    """

    sha256: str
    definition: dict[str, Any]

    @classmethod
    def of(cls, tool: mcp_types.Tool) -> Pin:
        """The pin of ``tool`` as listed now."""
        pinned = definition(tool)
        return cls(digest(pinned), pinned)


def lock_beside(config: str | Path) -> Path:
    """The lock file that belongs to a config file: ``mcp.json`` -> ``mcp.lock.json``."""
    path = Path(config)
    return path.with_name(f"{path.stem}.lock.json")


class ToolLock:
    """The trusted definitions of remote tools, per server, kept in a file or in memory.

    Args:
        path: The lock file (it need not exist yet); ``None`` keeps the pins in memory only,
            for the life of this object.

    Raises:
        McpConfigError: The file exists but is unreadable, not a lock, or an entry's hash does
            not match its definition (an edited lock): the message names the file and the fix.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._servers: dict[str, dict[str, Pin]] = self._read()

    def servers(self) -> list[str]:
        """The servers that have pins."""
        return list(self._servers)

    def pins(self, server: str) -> dict[str, Pin] | None:
        """The pins of ``server`` by tool name; ``None`` when the lock does not know it."""
        pins = self._servers.get(server)
        return dict(pins) if pins is not None else None

    def pin(self, server: str, pins: Mapping[str, Pin], *, replace: bool = False) -> None:
        """Trust these definitions of ``server``'s tools, and write the file.

        Args:
            server: The server's name in the config.
            pins: Tool name -> pin.
            replace: Drop the server's other pins (its tools were trusted as a whole).
        """
        self._servers = self._read() if self.path is not None else self._servers
        kept = {} if replace else self._servers.get(server, {})
        self._servers[server] = {**kept, **pins}
        self._write()

    def _read(self) -> dict[str, dict[str, Pin]]:
        if self.path is None or not self.path.exists():
            return getattr(self, "_servers", {})
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise McpConfigError(
                f"cannot read the tool lock {self.path}: {exc}; fix or delete it, then run "
                "'toolkit mcp trust' again"
            ) from None
        servers = data.get("servers") if isinstance(data, dict) else None
        if not isinstance(servers, dict) or data.get("version") != _VERSION:
            raise McpConfigError(
                f"{self.path} is not a tool lock (version {_VERSION} with 'servers'); delete "
                "it and run 'toolkit mcp trust' again"
            )
        return {str(name): self._server_pins(str(name), tools) for name, tools in servers.items()}

    def _server_pins(self, server: str, tools: Any) -> dict[str, Pin]:
        pins: dict[str, Pin] = {}
        for tool, entry in (tools or {}).items():
            pinned = entry.get("definition") if isinstance(entry, dict) else None
            if not isinstance(pinned, dict) or entry.get("sha256") != digest(pinned):
                raise McpConfigError(
                    f"{self.path}: the entry of tool {tool!r} of server {server!r} does not "
                    "match its hash (the lock was edited); run 'toolkit mcp trust' for the "
                    "server to pin what it lists now"
                )
            pins[str(tool)] = Pin(entry["sha256"], pinned)
        return pins

    def _write(self) -> None:
        if self.path is None:
            return
        data = {
            "version": _VERSION,
            "servers": {
                server: {
                    tool: {"sha256": pin.sha256, "definition": pin.definition}
                    for tool, pin in sorted(pins.items())
                }
                for server, pins in sorted(self._servers.items())
            },
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".lock-", dir=self.path.parent)
        except OSError as exc:
            raise McpConfigError(
                f"cannot write the tool lock {self.path}: {exc.strerror}; make its folder "
                "writable, or give the pool another lock= (the config's 'trust' pins need one)"
            ) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, ensure_ascii=True)
                out.write("\n")
            os.chmod(temp, 0o644)  # not a secret: a gateway's service account reads it
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else "memory"
        return f"ToolLock({where}, servers={self.servers()})"
