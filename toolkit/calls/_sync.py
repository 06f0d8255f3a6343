"""One background event loop for callers without one (``call_sync``, LangChain ``invoke``).

Every sync entry point of the toolkit runs its coroutines here, so resources bound to an event
loop (remote connections, their owner tasks) are created and used on the same loop whichever
sync caller comes first.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from anyio.from_thread import BlockingPortal, start_blocking_portal

__all__ = ["get_portal", "is_blocked", "run_sync"]

T = TypeVar("T")

_lock = threading.Lock()
_state: dict[str, Any] = {}
#: Threads waiting in run_sync right now (a thread id may appear more than once).
_blocked: list[int] = []


def get_portal() -> BlockingPortal:
    """The shared portal (an event loop in a daemon thread), started on first use."""
    portal = _state.get("portal")
    if portal is not None:
        return portal  # type: ignore[no-any-return]
    with _lock:
        if "portal" not in _state:
            cm: AbstractContextManager[BlockingPortal] = start_blocking_portal()
            _state["cm"] = cm
            _state["portal"] = cm.__enter__()
            _state["thread"] = threading.current_thread()
            atexit.register(_close)
    return _state["portal"]  # type: ignore[no-any-return]


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Run ``await fn(*args)`` on the shared loop and wait for the result."""
    portal = get_portal()
    me = threading.get_ident()
    _blocked.append(me)
    try:
        return portal.call(fn, *args)
    finally:
        _blocked.remove(me)


def is_blocked(thread_id: int) -> bool:
    """Whether ``thread_id`` is waiting in :func:`run_sync`.

    An event loop on that thread cannot run anything until the call returns, so work
    forwarded to it would wait forever; callers check this to fail with a message instead.
    """
    return thread_id in _blocked


def _close() -> None:
    cm = _state.pop("cm", None)
    _state.pop("portal", None)
    if cm is not None:
        with contextlib.suppress(Exception):  # interpreter shutdown: no one to tell
            cm.__exit__(None, None, None)
