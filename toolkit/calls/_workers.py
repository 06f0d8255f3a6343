"""Worker threads for sync tool functions, for both entry points.

A thread stuck in a function past its timeout is abandoned, not reused until it returns, so
workers are started on demand (the idle one used last is reused; idle ones leave after a while)
rather than kept in a fixed pool that stuck calls could exhaust.

Each worker waits on a wake-up of its own (:mod:`toolkit.calls._wakeup`: an ``eventfd`` written
without the GIL held, on Linux), so the caller hands a call to one known worker and can keep it on
its own CPU while the call is short (:mod:`toolkit.calls._cpu`): the hand-off then costs about 9 µs
of CPU instead of the 45-50 µs of two wake-ups across CPUs on a virtual machine.

Rule: at most :data:`MAX_ABANDONED_WORKERS` abandoned threads (calls still running after their
caller gave up: a timeout, a cancellation) exist at once. Past that, a call that needs a new
thread is not started: it fails at once with ``OVERLOADED``, and calls run again as soon as
a stuck function returns. Hung functions cannot grow the process one thread per call.

* :func:`run_blocking` — the sync entry point with a timeout: the caller's thread waits on a
  lock, for at most the timeout.
* :func:`run_awaitable` — the async entry point: the event loop is woken when the function
  returns. On asyncio this costs far less than ``anyio.to_thread.run_sync`` (no
  capacity-limiter checkpoint, no extra loop iteration); concurrent calls per event loop are
  capped at the size of anyio's default thread limiter (40 unless the application changed it),
  as before. Other event loops (trio) use ``anyio.to_thread``.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import contextvars
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

import anyio.to_thread

from toolkit.calls import _cpu
from toolkit.calls._sync import CALLING_LOOP
from toolkit.calls._wakeup import new_wakeup
from toolkit.errors import ErrorCode, ToolError

__all__ = ["MAX_ABANDONED_WORKERS", "abandoned_workers", "run_awaitable", "run_blocking"]

#: Threads still running a call whose caller gave up, at most; past it calls fail ``OVERLOADED``.
MAX_ABANDONED_WORKERS = 32

_IDLE_SECONDS = 30.0
#: A call still running after this many seconds lets its worker leave the caller's CPU.
_PINNED_SECONDS = 0.002


class _Job:
    __slots__ = (
        "abandoned",
        "args",
        "context",
        "done",
        "error",
        "finished",
        "fn",
        "notify",
        "result",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        notify: Callable[[], object] | None = None,
    ) -> None:
        self.context = contextvars.copy_context()  # the function sees the caller's context
        self.fn, self.args, self.notify = fn, args, notify
        self.result: Any = None
        self.error: BaseException | None = None
        self.done: Any = None
        self.finished = self.abandoned = False  # both under _guard
        if notify is None:
            self.done = _thread.allocate_lock()
            self.done.acquire()

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


class _Worker:
    """One thread that runs the jobs handed to it, one at a time."""

    __slots__ = ("cpu", "cpus", "go", "job", "native_id")

    def __init__(self) -> None:
        self.go = new_wakeup()
        self.job: _Job | None = None
        self.cpu = -1  # the CPU it is pinned to, -1: free
        thread = threading.Thread(target=self._work, name="toolkit-call", daemon=True)
        thread.start()
        self.native_id: int = thread.native_id or 0
        # What it gives back on free(): the process's CPUs (the main thread's), not the ones it
        # inherited from the thread that started it, which may be a worker pinned to one CPU.
        self.cpus = _cpu.allowed(os.getpid()) if self.native_id else None

    def hand(self, job: _Job, cpu: int) -> None:
        """Run ``job`` next, on ``cpu`` if it is not -1."""
        if cpu != self.cpu and cpu >= 0 and self.cpus and _cpu.pin(self.native_id, cpu):
            self.cpu = cpu
        self.job = job
        self.go.wake()

    def free(self) -> None:
        """Let the worker leave the CPU it was pinned to (its call runs long)."""
        if self.cpu >= 0 and self.cpus is not None:
            self.cpu = -1
            _cpu.unpin(self.native_id, self.cpus)

    def _work(self) -> None:
        go = self.go
        while True:
            if not go.wait(_IDLE_SECONDS):
                with _guard:
                    if self in _idle:  # nobody picked this worker: leave
                        _idle.remove(self)
                        go.close()
                        return
                go.wait(None)  # picked just now: its job is coming
            job, self.job = self.job, None
            assert job is not None
            try:
                job.result = job.context.run(job.fn, *job.args)
            except BaseException as exc:  # handed to the caller, whatever it is
                job.error = exc
            with _guard:  # idle before the caller wakes, so its next call finds this worker
                _idle.append(self)
                job.finished = True
                if job.abandoned:
                    _abandoned[0] -= 1
            if job.notify is not None:
                with contextlib.suppress(RuntimeError):  # the caller's loop is closed
                    job.notify()
            else:
                job.done.release()
            del job  # an idle worker keeps no result, arguments or context alive


_guard = threading.Lock()
#: Idle workers, the one that finished last at the end (it is likely on the caller's CPU).
_idle: list[_Worker] = []
#: How many workers run a call whose caller gave up (one cell, changed under _guard).
_abandoned = [0]


def abandoned_workers() -> int:
    """How many worker threads are still running a call whose caller gave up."""
    return _abandoned[0]


def _abandon(job: _Job) -> None:
    """The caller stops waiting for ``job``: count its worker until the function returns."""
    with _guard:
        if not job.finished and not job.abandoned:
            job.abandoned = True
            _abandoned[0] += 1


def _forget_workers() -> None:
    """In a forked child: the parent's workers do not exist here, so none is idle."""
    global _guard
    _guard = threading.Lock()
    for worker in _idle:  # the child's copies of their wake-ups
        worker.go.close()
    _idle.clear()
    _abandoned[0] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def _submit(job: _Job) -> _Worker:
    cpu = _cpu.current_cpu()
    with _guard:
        stuck = _abandoned[0]
        # The cap holds with idle workers about too: an idle one given a call that hangs
        # would be one more abandoned thread past it.
        worker = _idle.pop() if _idle and stuck < MAX_ABANDONED_WORKERS else None
    if worker is None:
        if stuck >= MAX_ABANDONED_WORKERS:
            raise ToolError(
                f"Not started: {stuck} earlier calls are still running past their timeout. "
                "Try again later; if it persists, the functions that hang need fixing.",
                code=ErrorCode.OVERLOADED,
                retryable=False,
            )
        worker = _Worker()
    worker.hand(job, cpu)
    return worker


def run_blocking(timeout: float, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """``(True, fn(*args))`` from a worker thread, or ``(False, None)`` after ``timeout`` s.

    A function still running at the timeout is abandoned: it finishes on its own and its
    result is dropped. Its exception, if it raises in time, is raised here.
    """
    deadline = time.monotonic() + timeout
    job = _Job(fn, args)
    worker = _submit(job)
    done = job.done
    try:
        if worker.cpu >= 0:
            # The worker shares this CPU, so it runs as soon as this thread yields: a short call
            # is done when the yield returns, without arming the timer of a timed wait (a few
            # µs of CPU on a virtual machine). A longer one is waited for as below. (A worker
            # woken on this CPU may even have run already: the wake-up released the GIL first.)
            if done.acquire(False):
                return True, job.outcome()
            os.sched_yield()
            if done.acquire(False):
                return True, job.outcome()
        if worker.cpu >= 0 and timeout > _PINNED_SECONDS:
            if done.acquire(timeout=_PINNED_SECONDS):
                return True, job.outcome()
            worker.free()
            finished = done.acquire(timeout=max(deadline - time.monotonic(), 0.0))
        else:
            finished = done.acquire(timeout=timeout)
    except BaseException:  # Ctrl-C in the waiting thread: the function finishes alone
        worker.free()
        _abandon(job)
        raise
    if not finished:
        worker.free()
        _abandon(job)
        return False, None
    return True, job.outcome()


_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


async def run_awaitable(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker thread; a cancelled caller abandons it (it finishes alone)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio): anyio's own threads
        return await anyio.to_thread.run_sync(lambda: fn(*args), abandon_on_cancel=True)
    limit = _limits.get(loop)
    if limit is None:
        size = int(anyio.to_thread.current_default_thread_limiter().total_tokens)
        limit = _limits[loop] = asyncio.Semaphore(size)
    async with limit:
        future: asyncio.Future[None] = loop.create_future()
        job = _Job(fn, args, lambda: loop.call_soon_threadsafe(_wake, future))
        job.context.run(CALLING_LOOP.set, loop)  # where the tool's sync callbacks go
        worker = _submit(job)
        timer = loop.call_later(_PINNED_SECONDS, worker.free) if worker.cpu >= 0 else None
        try:
            await future
        except BaseException:
            worker.free()
            _abandon(job)
            raise
        finally:
            if timer is not None:
                timer.cancel()
        return job.outcome()


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():  # a cancelled caller's future is done already
        future.set_result(None)
