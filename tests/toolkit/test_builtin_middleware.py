"""The built-in middleware: ``ResultCache``, ``RateLimit`` and ``CallerBudget``."""

from __future__ import annotations

import time

import pytest

from toolkit import (
    CallerBudget,
    ErrorCode,
    RateLimit,
    ResultCache,
    RunBudget,
    ToolContext,
    ToolRegistry,
    mcp_tool,
)

COUNTS = {"price": 0, "book": 0, "quote": 0}


@mcp_tool(read_only=True)
def price(sku: str) -> str:
    """The price of one SKU.

    Args:
        sku: The SKU.
    """
    COUNTS["price"] += 1
    if sku == "missing":
        raise ValueError("no such SKU")
    return f"{sku} costs {COUNTS['price']}"


@mcp_tool(idempotent=True)
def quote(sku: str) -> str:
    """A quote that stays the same for the same SKU.

    Args:
        sku: The SKU.
    """
    COUNTS["quote"] += 1
    return f"quote {sku}"


@mcp_tool
def book(sku: str) -> str:
    """Book one SKU (changes the world: never cached).

    Args:
        sku: The SKU.
    """
    COUNTS["book"] += 1
    return f"booked {sku}"


def _registry(*middleware: object) -> ToolRegistry:
    registry = ToolRegistry(middleware=list(middleware))  # type: ignore[arg-type]
    for fn in (price, quote, book):
        registry.register(fn)
    return registry


def _as(caller: str) -> ToolContext:
    return ToolContext(values={"caller": caller})


def test_the_cache_reuses_read_only_results_within_a_run_only() -> None:
    registry = _registry(ResultCache())
    before = COUNTS["price"]
    with registry.run():
        first = registry.call_sync("price", {"sku": "A"})
        again = registry.call_sync("price", {"sku": "A"})
        other = registry.call_sync("price", {"sku": "B"})
    assert again.content == first.content and other.content != first.content
    assert again.record is not None and again.record.answered_by == "cache"
    assert again.call_id and again.call_id != first.call_id
    assert COUNTS["price"] - before == 2
    with registry.run():  # a new run starts afresh
        assert registry.call_sync("price", {"sku": "A"}).record.answered_by is None  # type: ignore[union-attr]
    registry.call_sync("price", {"sku": "A"})  # outside a run: nothing is reused
    registry.call_sync("price", {"sku": "A"})
    assert COUNTS["price"] - before == 5


def test_the_cache_never_answers_other_tools_errors_or_other_callers() -> None:
    registry = _registry(ResultCache(ttl=60))
    booked, quoted, failed = COUNTS["book"], COUNTS["quote"], COUNTS["price"]
    for _ in range(3):
        registry.call_sync("book", {"sku": "A"})
        registry.call_sync("quote", {"sku": "A"})
        registry.call_sync("price", {"sku": "missing"})
    assert COUNTS["book"] - booked == 3  # neither read-only nor idempotent
    assert COUNTS["quote"] - quoted == 1  # idempotent: reused across runs within the TTL
    assert COUNTS["price"] - failed == 3  # failures are never kept
    ann = registry.call_sync("price", {"sku": "Z"}, _as("ann"))
    bo = registry.call_sync("price", {"sku": "Z"}, _as("bo"))
    ann_again = registry.call_sync("price", {"sku": "Z"}, _as("ann"))
    assert ann.content != bo.content and ann_again.content == ann.content


def test_a_ttl_expires() -> None:
    cache = ResultCache(ttl=0.05)
    registry = _registry(cache)
    before = COUNTS["quote"]
    registry.call_sync("quote", {"sku": "T"})
    time.sleep(0.06)
    registry.call_sync("quote", {"sku": "T"})
    assert COUNTS["quote"] - before == 2
    cache.clear()


def test_a_rate_limit_per_caller_says_when_to_retry() -> None:
    registry = _registry(RateLimit(per_caller=2, window=30))
    codes = [registry.call_sync("book", {"sku": "A"}, _as("ann")).code for _ in range(3)]
    assert codes == [None, None, ErrorCode.RATE_LIMITED]
    refused = registry.call_sync("book", {"sku": "A"}, _as("ann"))
    assert refused.error is not None and 1 <= refused.error.details["retry_after"] <= 30
    assert "try again in" in refused.content and refused.record is not None
    assert refused.record.answered_by == "rate_limit"
    assert registry.call_sync("book", {"sku": "A"}, _as("bo")).code is None  # another caller


def test_a_rate_limit_per_tool_counts_every_caller() -> None:
    registry = _registry(RateLimit.parse("tool.price=2,window=30"))
    codes = [registry.call_sync("price", {"sku": f"R{i}"}, _as(f"c{i}")).code for i in range(3)]
    assert codes == [None, None, ErrorCode.RATE_LIMITED]
    assert registry.call_sync("book", {"sku": "A"}).code is None  # other tools are free
    every = RateLimit.parse("tool=1,tool.price=5")
    assert every._tool_limit("book") == 1 and every._tool_limit("price") == 5


@pytest.mark.parametrize("text", ["caller", "users=3", "caller=lots"])
def test_a_wrong_rate_limit_says_how_to_write_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"NAME=NUMBER|names no limit"):
        RateLimit.parse(text)


def test_a_caller_budget_is_one_run_per_caller_and_window() -> None:
    budget = CallerBudget(RunBudget(calls=2, window=0.05))
    registry = _registry(budget)
    ann = [registry.call_sync("book", {"sku": f"A{i}"}, _as("ann")).code for i in range(3)]
    bo = registry.call_sync("book", {"sku": "B"}, _as("bo")).code
    assert ann == [None, None, ErrorCode.BUDGET_EXCEEDED] and bo is None
    assert budget.run_of("ann").stopped == "the limit of 2 tool calls"
    time.sleep(0.06)  # the window is over: a new run
    assert registry.call_sync("book", {"sku": "A"}, _as("ann")).code is None
