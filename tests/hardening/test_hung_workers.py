"""Hung sync calls cannot grow the process one thread per call: past a documented number of
abandoned workers a call is answered ``OVERLOADED`` at once, and calls run again as soon as
the hung functions return."""

from __future__ import annotations

import threading
import time

import anyio
import anyio.to_thread
import pytest

from toolkit import ToolRegistry
from toolkit.calls._workers import MAX_ABANDONED_WORKERS, abandoned_workers
from toolkit.errors import ErrorCode

pytestmark = pytest.mark.anyio

RELEASE = threading.Event()


def hang() -> str:
    """Wait for the test to let go."""
    RELEASE.wait(60)
    return "done"


def quick() -> str:
    """Answer at once."""
    return "quick"


async def _until_at_most(count: int, seconds: float) -> None:
    with anyio.move_on_after(seconds):
        while abandoned_workers() > count:
            await anyio.sleep(0.02)


async def test_hung_calls_are_capped_and_the_next_ones_told_overloaded() -> None:
    await _until_at_most(0, 5)  # let what earlier tests abandoned return, if it will
    before = abandoned_workers()
    registry = ToolRegistry(timeout=0.05)
    registry.register(hang)
    registry.register(quick)
    threads = threading.active_count()
    RELEASE.clear()
    try:
        results = [await registry.call("hang", {}) for _ in range(MAX_ABANDONED_WORKERS + 10)]
        grown = threading.active_count() - threads
        from_sync = await anyio.to_thread.run_sync(registry.call_sync, "hang", {})
    finally:
        RELEASE.set()
    codes = [r.code for r in results]
    timed_out = codes.count(ErrorCode.TIMEOUT)
    # Each call hangs until the cap, counting what earlier tests left hanging; then none starts.
    assert codes == [ErrorCode.TIMEOUT] * timed_out + [ErrorCode.OVERLOADED] * (
        len(codes) - timed_out
    )
    assert MAX_ABANDONED_WORKERS - before <= timed_out <= MAX_ABANDONED_WORKERS
    assert grown <= MAX_ABANDONED_WORKERS + 1  # 60 hung calls made 61 threads before
    assert from_sync.code is ErrorCode.OVERLOADED
    overloaded = results[-1]
    assert "still running past their timeout" in overloaded.content
    assert overloaded.error is not None and not overloaded.error.retryable
    await _until_at_most(before, 20)
    started = time.monotonic()
    assert (await registry.call("quick", {})).content == "quick"
    assert (await registry.call("hang", {})).content == "done"  # released: it runs again
    assert time.monotonic() - started < 10
