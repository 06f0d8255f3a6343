"""The shared background loop of sync callers: results, errors, context, and its own thread."""

from __future__ import annotations

import asyncio
import threading
from contextvars import ContextVar

import pytest

from toolkit.calls.runtime import get_portal, is_blocked, run_sync

_seen: ContextVar[str] = ContextVar("seen", default="unset")


async def _echo(value: str) -> tuple[str, str, bool]:
    return value, _seen.get(), is_blocked(threading.get_ident())


async def _fail() -> None:
    raise KeyError("boom")


def test_the_result_comes_back_with_the_callers_context_on_the_loop_thread() -> None:
    token = _seen.set("caller")
    try:
        value, seen, loop_blocked = run_sync(_echo, "x")
    finally:
        _seen.reset(token)
    assert (value, seen) == ("x", "caller")
    assert not loop_blocked  # the loop's own thread is not the one waiting
    assert not is_blocked(threading.get_ident())  # no longer waiting once it returned


def test_an_exception_is_raised_in_the_caller() -> None:
    with pytest.raises(KeyError, match="boom"):
        run_sync(_fail)


def test_calling_from_the_loops_own_thread_fails_instead_of_hanging() -> None:
    run_sync(asyncio.sleep, 0)  # the loop is known

    async def inner() -> str:
        try:
            run_sync(asyncio.sleep, 0)
        except RuntimeError as exc:
            return str(exc)
        return "no error"

    assert "event loop thread" in get_portal().call(inner)
