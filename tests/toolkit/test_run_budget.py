"""Run budgets and loop breaking for direct callers: ``with registry.run(...)``."""

from __future__ import annotations

import asyncio
import time

import pytest

from toolkit import CallOptions, ErrorCode, Run, RunBudget, ToolRegistry, mcp_tool
from toolkit.governance.budget import current_run

RAN: list[str] = []


@mcp_tool(read_only=True)
def stock(sku: str) -> str:
    """Units in stock of one SKU.

    Args:
        sku: The SKU.
    """
    RAN.append(sku)
    return f"{sku}: 12 units"


@mcp_tool
def reserve(sku: str) -> str:
    """Reserve one unit.

    Args:
        sku: The SKU.
    """
    return f"reserved {sku}"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(stock)
    registry.register(reserve)
    return registry


def test_past_the_call_limit_nothing_runs_and_the_run_stops() -> None:
    registry = _registry()
    before = len(RAN)
    with registry.run(calls=3) as run:
        codes = [registry.call_sync("stock", {"sku": f"S{i}"}).code for i in range(6)]
    assert codes == [None, None, None, *[ErrorCode.BUDGET_EXCEEDED] * 3]
    assert len(RAN) - before == 3
    assert run.stopped == "the limit of 3 tool calls" and run.calls == 3
    refused = registry.records[-1]
    assert refused.code is ErrorCode.BUDGET_EXCEEDED and refused.answered_by == "budget"
    assert refused.attempts == 0


def test_the_refusal_tells_the_model_what_ran_out_and_to_answer() -> None:
    registry = _registry()
    with registry.run(RunBudget(per_tool={"reserve": 1})):
        registry.call_sync("reserve", {"sku": "A"})
        refused = registry.call_sync("reserve", {"sku": "B"})
        after = registry.call_sync("stock", {"sku": "A"})  # the run has stopped
    assert refused.content.startswith("Error [BUDGET_EXCEEDED] in tool 'reserve':")
    assert "the limit of 1 calls of tool 'reserve'" in refused.content
    assert "answer now with what you have found so far" in refused.content
    assert refused.error is not None and refused.error.details["spent"]
    assert after.code is ErrorCode.BUDGET_EXCEEDED


def test_the_same_call_forever_is_answered_with_the_earlier_gist() -> None:
    registry = _registry()
    before = len(RAN)
    with registry.run(repeats=2):
        results = [registry.call_sync("stock", {"sku": "S-9"}) for _ in range(5)]
    assert [r.code for r in results] == [None, None, *[ErrorCode.REPEATED_CALL] * 3]
    assert len(RAN) - before == 2
    assert "Its earlier result: S-9: 12 units" in results[2].content
    assert "2 times" in results[2].content


def test_two_calls_alternating_are_caught_by_the_same_count() -> None:
    registry = _registry()
    with registry.run(repeats=2):
        codes = [registry.call_sync("stock", {"sku": "A" if i % 2 else "B"}).code for i in range(8)]
    assert codes[:4] == [None] * 4 and set(codes[4:]) == {ErrorCode.REPEATED_CALL}


def test_argument_order_does_not_make_a_call_new() -> None:
    registry = ToolRegistry()

    @mcp_tool
    def pair(a: int, b: int) -> int:
        """Add.

        Args:
            a: One.
            b: Two.
        """
        return a + b

    registry.register(pair)
    with registry.run(repeats=1):
        first = registry.call_sync("pair", '{"a": 1, "b": 2}')
        again = registry.call_sync("pair", '{"b": 2, "a": 1}')
    assert first.content == "3" and again.code is ErrorCode.REPEATED_CALL


def test_a_time_limit_stops_calls_that_start_later() -> None:
    registry = _registry()
    with registry.run(seconds=0.05) as run:
        assert registry.call_sync("stock", {"sku": "T"}).code is None
        time.sleep(0.06)
        assert registry.call_sync("stock", {"sku": "U"}).code is ErrorCode.BUDGET_EXCEEDED
    assert run.stopped == "the time limit of 0.05 s"


def test_async_scope_and_concurrent_calls_share_one_count() -> None:
    registry = _registry()

    async def main() -> list[ErrorCode | None]:
        async with registry.run(calls=10):
            results = await registry.call_many([("stock", {"sku": f"P{i}"}) for i in range(50)])
        return [r.code for r in results]

    codes = asyncio.run(main())
    assert codes.count(None) == 10 and codes.count(ErrorCode.BUDGET_EXCEEDED) == 40


def test_nested_calls_count_against_the_run_that_made_them() -> None:
    registry = _registry()

    @mcp_tool
    async def restock(count: int) -> str:
        """Check several SKUs (calls the registry itself, as a graph tool would).

        Args:
            count: How many SKUs.
        """
        for i in range(count):
            await registry.call("stock", {"sku": f"N{i}"})
        return "checked"

    registry.register(restock)
    with registry.run(calls=4) as outer:
        registry.call_sync("restock", {"count": 10})
    assert outer.calls == 4  # the outer call and three inner ones; the rest were refused
    assert outer.stopped == "the limit of 4 tool calls"


def test_an_inner_run_counts_against_its_parent_too() -> None:
    registry = _registry()
    with registry.run(calls=3) as outer:
        with registry.run(calls=10) as inner:
            codes = [registry.call_sync("stock", {"sku": f"I{i}"}).code for i in range(5)]
        assert current_run() is outer
    assert inner.parent is outer and outer.calls == 3
    assert codes.count(ErrorCode.BUDGET_EXCEEDED) == 2
    assert current_run() is None


def test_calls_outside_a_run_are_not_counted() -> None:
    registry = _registry()
    run = Run(RunBudget(calls=1))
    for _ in range(3):
        assert registry.call_sync("stock", {"sku": "O"}, options=CallOptions()).code is None
    assert run.calls == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("calls=20,repeats=3", RunBudget(calls=20, repeats=3)),
        (
            "per_tool.search=5, seconds=1.5, window=60",
            RunBudget(per_tool={"search": 5}, seconds=1.5, window=60),
        ),
        ("model_calls=4,tokens=1000", RunBudget(model_calls=4, tokens=1000)),
    ],
)
def test_a_budget_parses_from_text(text: str, expected: RunBudget) -> None:
    assert RunBudget.parse(text) == expected


@pytest.mark.parametrize("text", ["calls", "calls=many", "turns=3", "calls=-1"])
def test_a_wrong_budget_says_how_to_write_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"NAME=NUMBER|names no limit|0 or more"):
        RunBudget.parse(text)
