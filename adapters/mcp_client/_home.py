"""The event loop a pool was opened on, reachable from any other loop or thread.

A pool's connections are owned by tasks on the loop where the pool was opened (its *home*).
Their sessions, locks and events only work there, so a call made on another loop (the
toolkit's background loop behind ``call_sync``, a second ``anyio.run``, a Jupyter helper
thread) is forwarded home through a :class:`anyio.from_thread.BlockingPortal` that runs in the
pool's task group. The caller awaits the forwarded call without blocking its own loop, and
cancelling the caller cancels the call at home.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from anyio.from_thread import BlockingPortal

from toolkit.calls.runtime import is_blocked
from toolkit.errors import ErrorCode, ToolError

__all__ = ["HomeLoop"]

T = TypeVar("T")


class HomeLoop:
    """Runs coroutine functions on the pool's loop, whichever loop or thread asks.

    Create it inside the running home loop; it records that loop's thread.

    Args:
        portal: A running portal in the home loop (entered by the pool's owner task).
        owner: Who the loop belongs to, for messages (e.g. ``"McpClientPool"``).
    """

    def __init__(self, portal: BlockingPortal, owner: str) -> None:
        self._portal = portal
        self._owner = owner
        self._thread = threading.get_ident()
        self.closed = False

    def is_current(self) -> bool:
        """Whether the caller runs on the home loop's thread."""
        return threading.get_ident() == self._thread

    async def run(self, fn: Callable[..., Awaitable[T]], *args: object) -> T:
        """``await fn(*args)`` on the home loop; exceptions come back as themselves.

        Raises:
            ToolError: ``UNREACHABLE`` when the pool is closed or its loop cannot run the call.
        """
        if self.is_current():
            return await fn(*args)
        self._check_reachable()
        try:
            return await self._portal.call_async(fn, *args)
        except RuntimeError as exc:
            if _loop_gone(exc):
                raise self._closed_error() from None
            raise

    def run_sync(self, fn: Callable[..., Awaitable[T]], *args: object) -> T:
        """``await fn(*args)`` on the home loop from sync code, blocking until it is done.

        Raises:
            RuntimeError: Called on the home loop's own thread (it would wait for itself).
            ToolError: ``UNREACHABLE`` when the pool is closed.
        """
        if self.is_current():
            raise RuntimeError(
                f"The {self._owner} was opened on this thread's event loop, so a blocking call "
                "here would wait for itself; use the async method (await ...) instead, or open "
                "the pool with 'with' / start() from sync code."
            )
        self._check_reachable()
        try:
            return self._portal.call(fn, *args)
        except RuntimeError as exc:
            if _loop_gone(exc):
                raise self._closed_error() from None
            raise

    def _check_reachable(self) -> None:
        if self.closed:
            raise self._closed_error()
        if is_blocked(self._thread):
            # The home loop's thread is itself waiting in call_sync for this very call.
            raise ToolError(
                f"The {self._owner} runs on an event loop that is blocked by a synchronous "
                "call (call_sync or a LangChain invoke made on that loop's thread). Use "
                "'await registry.call(...)' / 'await tool.ainvoke(...)' there, or open the "
                "pool from sync code with 'with McpClientPool(...)' or start().",
                code=ErrorCode.UNREACHABLE,
                retryable=False,
            )

    def _closed_error(self) -> ToolError:
        return ToolError(
            f"The {self._owner} is closed; open it again (async with / with / start()) "
            "before calling its tools.",
            code=ErrorCode.UNREACHABLE,
            retryable=False,
        )


def _loop_gone(exc: RuntimeError) -> bool:
    """Whether the portal refused the call because the home loop stopped or ended."""
    return isinstance(exc, anyio.RunFinishedError) or "portal is not running" in str(exc)
