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
from toolkit._workers import MAX_ABANDONED_WORKERS, abandoned_workers
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


async def _until_no_abandoned() -> None:
    with anyio.fail_after(20):
        while abandoned_workers():
            await anyio.sleep(0.02)


async def test_hung_calls_are_capped_and_the_next_ones_told_overloaded() -> None:
    await _until_no_abandoned()  # what earlier tests left behind has returned
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
    assert codes == [ErrorCode.TIMEOUT] * MAX_ABANDONED_WORKERS + [ErrorCode.OVERLOADED] * 10
    assert grown <= MAX_ABANDONED_WORKERS + 1  # 60 hung calls made 61 threads before
    assert from_sync.code is ErrorCode.OVERLOADED
    overloaded = results[-1]
    assert "still running past their timeout" in overloaded.content
    assert overloaded.error is not None and not overloaded.error.retryable
    await _until_no_abandoned()
    started = time.monotonic()
    assert (await registry.call("quick", {})).content == "quick"
    assert (await registry.call("hang", {})).content == "done"  # released: it runs again
    assert time.monotonic() - started < 10
