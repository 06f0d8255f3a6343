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

__all__ = ["get_portal", "run_sync"]

T = TypeVar("T")

_lock = threading.Lock()
_state: dict[str, Any] = {}


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
    return get_portal().call(fn, *args)


def _close() -> None:
    cm = _state.pop("cm", None)
    _state.pop("portal", None)
    if cm is not None:
        with contextlib.suppress(Exception):  # interpreter shutdown: no one to tell
            cm.__exit__(None, None, None)
