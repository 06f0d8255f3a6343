"""Sync functions awaited through ``registry.call`` run in the core's own worker threads: they see
the caller's context, a timed-out one is abandoned without harm, and concurrency per event loop
is capped at anyio's default thread limit."""

from __future__ import annotations

import contextvars
import threading
import time

import anyio
import anyio.to_thread
import pytest

from toolkit import CallOptions, ToolRegistry
from toolkit.errors import ErrorCode

pytestmark = pytest.mark.anyio

TENANT: contextvars.ContextVar[str] = contextvars.ContextVar("tenant", default="none")


def whose() -> str:
    """Say which tenant the caller set.

    Returns:
        The tenant.
    """
    return f"{TENANT.get()} in {threading.current_thread().name}"


async def test_a_sync_tool_sees_the_callers_context_in_a_worker_thread() -> None:
    registry = ToolRegistry()
    registry.register(whose)
    TENANT.set("acme")
    result = await registry.call("whose", {})
    assert result.content == "acme in toolkit-call"


async def test_a_timed_out_sync_tool_is_abandoned_and_the_loop_goes_on() -> None:
    finished = threading.Event()

    def stuck(seconds: float) -> str:
        """Sleep.

        Args:
            seconds: How long.
        """
        time.sleep(seconds)
        finished.set()
        return "late"

    registry = ToolRegistry(timeout=0.2)
    registry.register(stuck)
    result = await registry.call("stuck", {"seconds": 1.0})
    assert result.code is ErrorCode.TIMEOUT
    assert not finished.is_set()  # the caller did not wait for it
    await anyio.to_thread.run_sync(finished.wait, 5)
    await anyio.sleep(0.05)  # its late wake-up lands on a finished call: nothing happens
    assert (await registry.call("stuck", {"seconds": 0.0})).content == "late"


async def test_an_exception_in_the_thread_is_the_calls_failure() -> None:
    def broken() -> str:
        """Fail."""
        raise ValueError("no stock for SKU-1")

    registry = ToolRegistry()
    registry.register(broken)
    result = await registry.call("broken", {})
    assert result.is_error and "no stock for SKU-1" in result.content


async def test_concurrent_sync_calls_are_capped_by_anyios_thread_limit() -> None:
    running, peak = [0], [0]
    lock = threading.Lock()

    def busy() -> str:
        """Hold a thread for a moment."""
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return "ok"

    registry = ToolRegistry()
    registry.register(busy)
    cap = int(anyio.to_thread.current_default_thread_limiter().total_tokens)
    results = []

    async def one() -> None:
        results.append(await registry.call("busy", {}))

    async with anyio.create_task_group() as group:
        for _ in range(cap + 10):
            group.start_soon(one)
    assert [r.content for r in results] == ["ok"] * (cap + 10)
    assert peak[0] <= cap


async def test_an_async_tools_own_timeout_error_is_not_taken_for_the_call_timeout() -> None:
    async def upstream() -> str:
        """Ask a slow upstream service."""
        raise TimeoutError("upstream did not answer in 2 s")

    async def forever() -> str:
        """Never finish."""
        await anyio.sleep(60)
        return "never"

    registry = ToolRegistry(timeout=5.0)
    registry.register(upstream)
    registry.register(forever, name="forever")
    own = await registry.call("upstream", {})
    assert own.is_error and "upstream did not answer in 2 s" in own.content
    assert "did not finish within" not in own.content
    stopped = await registry.call("forever", {}, options=CallOptions(timeout=0.1))
    assert stopped.code is ErrorCode.TIMEOUT and "did not finish within 0.1 s" in stopped.content
