"""Worker threads for sync tool functions, for both entry points.

A thread stuck in a function past its timeout is abandoned, not reused, so workers are started
on demand (an idle one is reused; idle ones leave after a while) rather than kept in a fixed
pool that stuck calls could exhaust.

* :func:`run_blocking` — the sync entry point with a timeout: the caller's thread waits on a
  lock, for at most the timeout.
* :func:`run_awaitable` — the async entry point: the event loop is woken when the function
  returns. On asyncio this costs about half of ``anyio.to_thread.run_sync`` (no capacity-limiter
  checkpoint, no extra loop iteration); concurrent calls per event loop are capped at the size
  of anyio's default thread limiter (40 unless the application changed it), as before. Other
  event loops (trio) use ``anyio.to_thread``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

import anyio.to_thread

__all__ = ["run_awaitable", "run_blocking"]

_IDLE_SECONDS = 30.0


class _Job:
    __slots__ = ("abandoned", "args", "context", "done", "error", "fn", "notify", "result")

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
        self.abandoned = False
        if notify is None:
            self.done = threading.Lock()
            self.done.acquire()

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result


_jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
_lock = threading.Lock()
_idle = [0]


def _submit(job: _Job) -> None:
    with _lock:
        start = _idle[0] == 0
        if not start:
            _idle[0] -= 1
    _jobs.put(job)
    if start:
        threading.Thread(target=_work, name="toolkit-call", daemon=True).start()


def _work() -> None:
    while True:
        try:
            job = _jobs.get(timeout=_IDLE_SECONDS)
        except queue.Empty:
            with _lock:
                if _idle[0] > 0:  # nobody counted on this worker: leave
                    _idle[0] -= 1
                    return
            continue  # a job was promised to an idle worker: wait for it
        try:
            job.result = job.context.run(job.fn, *job.args)
        except BaseException as exc:  # handed to the caller, whatever it is
            job.error = exc
        with _lock:  # idle before the caller wakes, so its next call finds this worker
            _idle[0] += 1
        if job.notify is not None:
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed: no one waits
                job.notify()
        else:
            job.done.release()


def run_blocking(timeout: float, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """``(True, fn(*args))`` from a worker thread, or ``(False, None)`` after ``timeout`` s.

    A function still running at the timeout is abandoned: it finishes on its own and its
    result is dropped. Its exception, if it raises in time, is raised here.
    """
    job = _Job(fn, args)
    _submit(job)
    if not job.done.acquire(timeout=timeout):
        job.abandoned = True
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
        _submit(job)
        try:
            await future
        except BaseException:
            job.abandoned = True
            raise
        return job.outcome()


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():  # a cancelled caller's future is done already
        future.set_result(None)
