"""Awaited calls share one timer per event loop for their deadlines: each call still ends at
its own deadline, an earlier deadline is not held up by a later one, and a cancellation from
outside stays a cancellation (never a ``TIMEOUT``)."""

from __future__ import annotations

import asyncio

import pytest

from toolkit import CallOptions, ToolRegistry, ToolResult


async def nap(seconds: float) -> str:
    """Sleep, then answer.

    Args:
        seconds: How long.
    """
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


async def stubborn(seconds: float) -> str:
    """Sleep, shrug off one cancellation, answer.

    Args:
        seconds: How long.
    """
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        return "kept going"
    return "done"


def _registry() -> ToolRegistry:
    registry = ToolRegistry(timeout=30)
    registry.register(nap)
    registry.register(stubborn)
    return registry


def _limit(seconds: float) -> CallOptions:
    return CallOptions(timeout=seconds)


def _outcome(result: ToolResult) -> str:
    return result.code.value if result.code else result.content


async def _calls() -> list[str]:
    registry = _registry()
    # A long deadline first, so the timer is armed late; the shorter ones must re-arm it.
    results = await asyncio.gather(
        registry.call("nap", {"seconds": 0.4}, options=_limit(20)),
        registry.call("nap", {"seconds": 10}, options=_limit(0.2)),
        registry.call("nap", {"seconds": 10}, options=_limit(0.3)),
        registry.call("nap", {"seconds": 0.01}, options=_limit(0.5)),
    )
    return [_outcome(r) for r in results]


def test_each_call_ends_at_its_own_deadline() -> None:
    outcomes = asyncio.run(asyncio.wait_for(_calls(), 10))
    assert outcomes == ["slept 0.4", "TIMEOUT", "TIMEOUT", "slept 0.01"]


def test_a_tool_that_returns_after_its_deadline_fired_keeps_its_answer() -> None:
    async def main() -> str:
        result = await _registry().call("stubborn", {"seconds": 5}, options=_limit(0.1))
        await asyncio.sleep(0.01)  # the task was not left with a pending cancellation
        return _outcome(result)

    assert asyncio.run(asyncio.wait_for(main(), 10)) == "kept going"


def test_a_cancellation_from_outside_is_not_a_timeout() -> None:
    async def main() -> None:
        call = asyncio.ensure_future(_registry().call("nap", {"seconds": 5}, options=_limit(1)))
        await asyncio.sleep(0.05)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(asyncio.wait_for(main(), 10))


def test_an_outer_timeout_shorter_than_the_calls_stays_the_callers() -> None:
    async def main() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await _registry().call("nap", {"seconds": 5}, options=_limit(3))

    asyncio.run(asyncio.wait_for(main(), 10))


def test_calls_after_an_expiry_still_get_their_deadline() -> None:
    async def main() -> list[str]:
        registry = _registry()
        first = await registry.call("nap", {"seconds": 5}, options=_limit(0.1))
        second = await registry.call("nap", {"seconds": 5}, options=_limit(0.1))
        third = await registry.call("nap", {"seconds": 0}, options=_limit(0.1))
        return [_outcome(first), _outcome(second), _outcome(third)]

    assert asyncio.run(asyncio.wait_for(main(), 10)) == ["TIMEOUT", "TIMEOUT", "slept 0.0"]
