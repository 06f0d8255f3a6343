"""Deadlines of awaited calls on asyncio: one timer per event loop, not one per call.

``asyncio.timeout`` arms a timer for every call and cancels it when the call returns: a
``TimerHandle``, a heap push, and a cancelled handle for the loop to pop later, about 3-4 µs
of CPU per call. Calls nearly always finish long before their deadline (300 s by default), so
here every call on a loop only registers its deadline (a dict entry); one timer is armed for
the earliest deadline and re-armed only when a call brings an earlier one. When it fires, the
calls past their deadline are cancelled exactly as ``asyncio.timeout`` cancels them (the same
``cancelling()`` / ``uncancel()`` bookkeeping, so an outer cancellation still wins), and the
timer is armed for the next earliest deadline, if any.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections.abc import Awaitable
from typing import Any, TypeVar

__all__ = ["Expired", "within"]

T = TypeVar("T")


class Expired(Exception):
    """The awaited call ran past its deadline (the caller turns it into ``TIMEOUT``)."""


class _Call:
    __slots__ = ("cancelling", "expired", "task", "when")

    def __init__(self, task: asyncio.Task[Any], when: float) -> None:
        self.task, self.when = task, when
        self.cancelling = task.cancelling()
        self.expired = False


class _Deadlines:
    """The running calls of one loop with a deadline, and the one timer for them."""

    __slots__ = ("armed_at", "calls", "handle", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.calls: dict[_Call, None] = {}
        self.handle: asyncio.TimerHandle | None = None
        self.armed_at = math.inf

    def add(self, call: _Call) -> None:
        self.calls[call] = None
        if call.when < self.armed_at:
            self._arm(call.when)

    def _arm(self, when: float) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.handle = self.loop.call_at(when, self._fire)
        self.armed_at = when

    def _fire(self) -> None:
        self.handle, self.armed_at = None, math.inf
        now = self.loop.time()
        earliest = math.inf
        for call in list(self.calls):
            if call.when <= now:
                del self.calls[call]
                call.expired = True
                call.task.cancel()
            elif call.when < earliest:
                earliest = call.when
        if earliest < math.inf:
            self._arm(earliest)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Deadlines] = (
    weakref.WeakKeyDictionary()
)
#: The deadlines of the loop used last: a weak-dictionary lookup costs more than a call here.
_last: list[_Deadlines | None] = [None]


async def within(timeout: float, awaitable: Awaitable[T]) -> T:
    """``await awaitable``, or :class:`Expired` after ``timeout`` seconds (asyncio only).

    Must run in an asyncio task (the caller checks); the awaitable is cancelled at the
    deadline like under ``asyncio.timeout``.
    """
    task = asyncio.current_task()
    assert task is not None
    loop = task.get_loop()
    deadlines = _last[0]
    if deadlines is None or deadlines.loop is not loop:  # another loop than the last call's
        deadlines = _loops.get(loop)
        if deadlines is None:
            deadlines = _loops[loop] = _Deadlines(loop)
        _last[0] = deadlines
    call = _Call(task, loop.time() + timeout)
    deadlines.add(call)
    try:
        result = await awaitable
    except BaseException as exc:
        if not call.expired:  # only the timer removes a call, and it marks it expired
            del deadlines.calls[call]
            raise
        if task.uncancel() <= call.cancelling and isinstance(exc, asyncio.CancelledError):
            raise Expired from None  # our cancellation, and no one else's since
        raise
    if call.expired:  # it returned anyway: take our cancellation back, as asyncio.timeout does
        task.uncancel()
    else:
        del deadlines.calls[call]
    return result
