"""Sequential tools: a call of a tool marked ``sequential=True`` runs alone in its turn.

Each call of a model turn is its own graph task, so the calls of a turn run at once. When a
turn holds a call of a sequential tool, its calls share a gate (a readers-writer lock, keyed
by the turn): other calls hold it shared, so they still run concurrently with each other, and
a sequential call holds it alone, so it never overlaps any other call of the turn. The gate
works across threads (``invoke`` runs a turn's tasks on a thread pool) and on an event loop
(``ainvoke``; waiting is done in a worker thread, never on the loop).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Iterator

import anyio.to_thread

__all__ = ["Gates"]


class _Gate:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.shared = 0
        self.alone = False
        self.users = 0  # holders and waiters: the gate is dropped when none is left

    def _free(self, exclusive: bool) -> bool:
        return not self.alone and (not exclusive or self.shared == 0)

    def try_acquire(self, exclusive: bool) -> bool:
        with self.cond:
            if not self._free(exclusive):
                return False
            self._take(exclusive)
            return True

    def acquire(self, exclusive: bool) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self._free(exclusive))
            self._take(exclusive)

    def _take(self, exclusive: bool) -> None:
        if exclusive:
            self.alone = True
        else:
            self.shared += 1

    def release(self, exclusive: bool) -> None:
        with self.cond:
            if exclusive:
                self.alone = False
            else:
                self.shared -= 1
            self.cond.notify_all()


class Gates:
    """The gates of the turns whose calls are running now, by turn key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[str, _Gate] = {}

    def _enter(self, key: str) -> _Gate:
        with self._lock:
            gate = self._gates.get(key)
            if gate is None:
                gate = self._gates[key] = _Gate()
            gate.users += 1
            return gate

    def _leave(self, key: str, gate: _Gate) -> None:
        with self._lock:
            gate.users -= 1
            if gate.users == 0:
                self._gates.pop(key, None)

    @contextlib.contextmanager
    def hold(self, key: str | None, exclusive: bool) -> Iterator[None]:
        """Hold turn ``key``'s gate (alone if ``exclusive``) while the block runs."""
        if key is None:
            yield
            return
        gate = self._enter(key)
        try:
            gate.acquire(exclusive)
            try:
                yield
            finally:
                gate.release(exclusive)
        finally:
            self._leave(key, gate)

    @contextlib.asynccontextmanager
    async def ahold(self, key: str | None, exclusive: bool) -> AsyncIterator[None]:
        """:meth:`hold` for a task on an event loop."""
        if key is None:
            yield
            return
        gate = self._enter(key)
        try:
            if not gate.try_acquire(exclusive):
                # Not cancellable midway: a wait abandoned in its thread could still take the
                # gate later and never give it back.
                await anyio.to_thread.run_sync(gate.acquire, exclusive)
            try:
                yield
            finally:
                gate.release(exclusive)
        finally:
            self._leave(key, gate)
