"""Find every process a stdio server started, so that none survives its shutdown.

A process group is not enough: a server may start helpers with ``setsid`` (a new session and
group) or let them be reparented when a middle process exits. Each server therefore gets a
unique marker in its environment, which every descendant inherits unless it clears its
environment on purpose; at shutdown we kill the server's group, its process tree (by parent
ids) and every process that carries the marker. Uses ``/proc`` (Linux); elsewhere only the
process group is signalled.
"""

from __future__ import annotations

import os
import secrets
import signal
from contextlib import suppress
from pathlib import Path

__all__ = ["MARKER_VAR", "kill_all", "new_marker", "server_processes"]

#: The environment variable carrying a server's marker.
MARKER_VAR = "MCP_TOOLKIT_SERVER_MARKER"

_PROC = Path("/proc")


def new_marker() -> str:
    """A fresh marker value for one server process."""
    return secrets.token_hex(12)


def server_processes(root: int | None, marker: str) -> set[int]:
    """Pids of ``root``'s descendants and of every process whose environment has ``marker``.

    Take it while ``root`` still runs: once it exits, its children get other parents.
    """
    if not _PROC.is_dir():
        return set()
    needle = f"{MARKER_VAR}={marker}".encode()
    parents: dict[int, int] = {}
    found: set[int] = set()
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        with suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_bytes()
            parents[pid] = int(stat[stat.rindex(b")") + 2 :].split()[1])
        with suppress(OSError):
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.add(pid)
    tree = {root} if root is not None else set()
    grew = root is not None
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return (found | tree) - {root, os.getpid()}


def kill_all(pids: set[int], marker: str) -> None:
    """SIGKILL ``pids`` (taken earlier) and every process still carrying ``marker``."""
    for pid in pids | server_processes(None, marker):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
