"""A sync tool that never returns still ends in ``TIMEOUT`` for its caller, whichever entry
point waits for it, and the worker thread it holds is set free of the caller's CPU.

Short calls run in a worker kept on the caller's CPU (two cheap wake-ups instead of two across
CPUs); a call that runs longer is unpinned while it runs. Every wait here is bounded: a caller
that would hang fails the test instead of the run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from toolkit import CallOptions, ToolRegistry, ToolResult
from toolkit.calls import _workers
from toolkit.calls._cpu import current_cpu
from toolkit.errors import ErrorCode

pytestmark = pytest.mark.anyio

RELEASE = threading.Event()  # set at the end of each test: hung tools return then
STARTED: list[int] = []  # native ids of the threads that ran ``hang``


def hang(note: str) -> str:
    """Wait until the test ends.

    Args:
        note: Anything.
    """
    STARTED.append(threading.get_native_id())
    RELEASE.wait(30)
    return f"late {note}"


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


def cpus_seen() -> list[int]:
    """The CPUs this thread may run on right now."""
    return sorted(os.sched_getaffinity(0))


def cpus_after_a_while() -> list[int]:
    """The CPUs this thread may run on once it has run for a while (waits up to 10 s)."""
    allowed = sorted(os.sched_getaffinity(os.getpid()))
    for _ in range(1000):
        RELEASE.wait(0.01)
        if sorted(os.sched_getaffinity(0)) == allowed:
            break
    return sorted(os.sched_getaffinity(0))


@pytest.fixture(autouse=True)
def _release() -> Iterator[None]:
    RELEASE.clear()
    STARTED.clear()
    yield
    RELEASE.set()


def _registry(timeout: float | None = 0.3) -> ToolRegistry:
    registry = ToolRegistry(timeout=timeout)
    for fn in (hang, add, cpus_seen, cpus_after_a_while):
        registry.register(fn)
    return registry


def _bounded(call: Callable[[], ToolResult], seconds: float = 10.0) -> ToolResult:
    """``call()`` in a thread of its own; fails the test if it has not returned in ``seconds``."""
    out: list[ToolResult] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the caller was not given back at the deadline"
    return out[0]


def _started() -> list[int]:
    """The threads that started ``hang`` (waits up to 10 s for the first one)."""
    for _ in range(1000):
        if STARTED:
            break
        RELEASE.wait(0.01)
    return list(STARTED)


def _process_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(os.getpid()))


def test_call_sync_of_a_hung_tool_is_a_timeout_and_the_next_call_works() -> None:
    registry = _registry()
    result = _bounded(lambda: registry.call_sync("hang", {"note": "x"}))
    assert result.code is ErrorCode.TIMEOUT
    assert "did not finish within 0.3 s" in result.content
    assert registry.call_sync("add", {"a": 40, "b": 2}).content == "42"


def test_a_hung_worker_is_set_free_of_the_callers_cpu() -> None:
    registry = _registry()
    assert _bounded(lambda: registry.call_sync("hang", {"note": "x"})).code is ErrorCode.TIMEOUT
    (stuck,) = _started()
    assert sorted(os.sched_getaffinity(stuck)) == _process_cpus()


def test_a_short_call_runs_on_the_callers_cpu_and_a_long_one_is_set_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = _registry(timeout=30)
    # "Short" is stretched to 5 s so that a slow wake-up on a busy machine does not count.
    monkeypatch.setattr(_workers, "_PINNED_SECONDS", 5.0)
    short = registry.call_sync("cpus_seen", {})
    assert short.structured is not None
    seen = short.structured.get("result", short.structured)
    if current_cpu() >= 0:  # pinning is on here (Linux, several CPUs, not turned off)
        assert len(seen) == 1
    else:
        assert seen == _process_cpus()
    monkeypatch.setattr(_workers, "_PINNED_SECONDS", 0.05)
    long = registry.call_sync("cpus_after_a_while", {})
    assert long.structured is not None
    assert long.structured.get("result", long.structured) == _process_cpus()


def test_a_timeout_per_call_applies_to_the_in_thread_default_too() -> None:
    registry = _registry(timeout=None)
    options = CallOptions(timeout=0.2)
    result = _bounded(lambda: registry.call_sync("hang", {"note": "y"}, options=options))
    assert result.code is ErrorCode.TIMEOUT


def test_callers_in_many_threads_each_get_their_own_answer() -> None:
    registry = _registry()
    results: dict[int, ToolResult] = {}

    def caller(i: int) -> None:
        name, args = ("hang", {"note": str(i)}) if i == 0 else ("add", {"a": i, "b": 1000})
        for _ in range(50 if i else 1):
            results[i] = registry.call_sync(name, args)

    threads = [threading.Thread(target=caller, args=(i,), daemon=True) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    assert results[0].code is ErrorCode.TIMEOUT
    assert [results[i].content for i in range(1, 6)] == [str(i + 1000) for i in range(1, 6)]


def test_a_tool_that_calls_a_hung_tool_gets_the_timeout_as_a_result() -> None:
    registry = _registry(timeout=5)

    def outer() -> str:
        """Call the hung tool with a short timeout."""
        inner = registry.call_sync("hang", {"note": "z"}, options=CallOptions(timeout=0.2))
        return f"inner said {inner.code.value if inner.code else 'ok'}"

    registry.register(outer)
    assert _bounded(lambda: registry.call_sync("outer", {})).content == "inner said TIMEOUT"


async def test_await_call_of_a_hung_tool_is_a_timeout_and_frees_the_worker() -> None:
    registry = _registry()
    with anyio.fail_after(10):
        result = await registry.call("hang", {"note": "x"})
    assert result.code is ErrorCode.TIMEOUT
    (stuck,) = await anyio.to_thread.run_sync(_started)
    assert sorted(os.sched_getaffinity(stuck)) == _process_cpus()
    assert (await registry.call("add", {"a": 1, "b": 2})).content == "3"


def test_workers_are_not_pinned_when_the_environment_says_no() -> None:
    code = "from toolkit.calls._cpu import current_cpu; print(current_cpu())"
    env: dict[str, Any] = {**os.environ, "TOOLKIT_PIN_WORKERS": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == "-1", out.stderr


def test_a_forked_child_starts_workers_of_its_own() -> None:
    registry = _registry(timeout=5)
    assert registry.call_sync("add", {"a": 1, "b": 1}).content == "2"  # a worker is idle now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's idle worker does not exist here
        try:
            os.write(write, _outcome(registry.call_sync("add", {"a": 2, "b": 3})).encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            answer = pipe.read()
    finally:
        os.waitpid(pid, 0)
    assert answer == "5"


def _outcome(result: ToolResult) -> str:
    return result.code.value if result.code else result.content
