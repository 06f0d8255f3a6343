"""How a call waits: the one difference between the sync and the async entry points.

The invoker writes the call path once, as a coroutine. The async entry point awaits it on the
caller's event loop (:data:`ASYNC`). The sync entry point drives the same coroutine to its end in
the caller's thread (:func:`drive`) with :data:`SYNC`, whose steps block instead of suspending:
the tool runs in this thread (or in a worker thread when a timeout applies), backoff sleeps, and
an async policy or approver is awaited on the shared background loop.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import anyio

from toolkit.calls._deadlines import Expired, within
from toolkit.calls._sync import run_sync
from toolkit.calls._workers import run_blocking
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.result import ToolResult
from toolkit.tool import InlineTool, Tool

__all__ = ["ASYNC", "SYNC", "Waiting", "drive", "timed_out"]


class Waiting(Protocol):
    """The waiting steps of the call path."""

    async def settle(self, value: Any) -> Any:
        """``value``, awaited first if it is awaitable (async policies and approvers)."""
        ...

    async def run(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout: float | None
    ) -> ToolResult:
        """One attempt of the tool, failing with ``TIMEOUT`` after ``timeout`` seconds."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait between attempts."""
        ...

    def cancelled(self, exc: BaseException) -> bool:
        """Whether ``exc`` is the caller cancelling the call (it always propagates)."""
        ...


def timed_out(timeout: float) -> ToolError:
    """The ``TIMEOUT`` failure of an attempt that ran past ``timeout`` seconds."""
    return ToolError(
        f"The tool did not finish within {timeout:g} s and was stopped.", code=ErrorCode.TIMEOUT
    )


class _Async:
    async def settle(self, value: Any) -> Any:
        return await value if inspect.isawaitable(value) else value

    async def run(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout: float | None
    ) -> ToolResult:
        if timeout is None:
            return await tool.call(args, ctx)
        if _on_asyncio():  # one timer per loop, not one per call (see toolkit.calls._deadlines)
            try:
                return await within(timeout, tool.call(args, ctx))
            except Expired:
                raise timed_out(timeout) from None
        with anyio.move_on_after(timeout) as scope:
            result = await tool.call(args, ctx)
        if not scope.cancelled_caught:
            return result
        raise timed_out(timeout)

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)

    def cancelled(self, exc: BaseException) -> bool:
        return isinstance(exc, anyio.get_cancelled_exc_class())


def _on_asyncio() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # another event loop (trio)
        return False


class _Sync:
    """Blocking steps; ``run`` takes tools that run inline only (the invoker makes sure:
    :func:`toolkit.tool.runs_inline`)."""

    async def settle(self, value: Any) -> Any:
        if not inspect.isawaitable(value):
            return value
        return run_sync(_awaited, value)

    async def run(
        self, tool: Tool, args: dict[str, Any], ctx: ToolContext, timeout: float | None
    ) -> ToolResult:
        inline: InlineTool = tool  # type: ignore[assignment]  # the invoker checked runs_inline
        call_inline: Callable[[dict[str, Any], ToolContext], ToolResult] = inline.call_inline
        if timeout is None:
            return call_inline(args, ctx)
        finished, result = run_blocking(timeout, call_inline, args, ctx)
        if not finished:  # the thread finishes on its own; its result is dropped
            raise timed_out(timeout)
        return result  # type: ignore[no-any-return]

    async def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def cancelled(self, exc: BaseException) -> bool:
        return False


async def _awaited(value: Any) -> Any:
    return await value


ASYNC: Waiting = _Async()
SYNC: Waiting = _Sync()


def drive(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (the call path with :data:`SYNC`) to its result."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("the sync call path suspended; it must only block")
