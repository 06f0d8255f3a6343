"""What the middleware slot costs per call: none, three middlewares, and a run's budget.

Run: ``.venv/bin/python bench/bench_middleware.py [--quick]`` (about 20 s; ``--quick`` makes
fewer calls, for smoke runs where the figures mean little).

The tools are trivial functions on a registry with ``timeout=None`` (the cheapest call path,
so the middleware's share shows): a sync one called with ``call_sync``, an async one awaited
with ``await registry.call``. Measured:

* **none**: no middleware and no run: the pipeline as before the slot existed;
* **three**: a pass-through middleware, ``RateLimit`` (limits never reached) and
  ``ResultCache`` (the tool is not read-only, so it passes through): three layers that each do
  their work and call the next;
* **run**: no middleware, inside ``registry.run(...)`` with a call limit never reached: the
  budget's guard alone.

Each figure is the median CPU time per call (``time.process_time_ns``) of several passes; the
"added" columns are the median of the differences to **none** measured in the same pass. The
last line is what the slot costs a call when there is nothing to run: the one check the
pipeline makes (``layers``), timed alone.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._load import machine
from toolkit import (
    CallNext,
    Middleware,
    RateLimit,
    ResultCache,
    ToolCall,
    ToolRegistry,
    ToolResult,
    mcp_tool,
)
from toolkit.governance._middleware_chain import layers

#: The issue's limit for three middlewares, in µs per call.
TARGET_US = 15.0


@mcp_tool
def add(a: int, b: int = 1) -> int:
    """Add two integers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


class PassThrough:
    """A middleware that only calls the next one."""

    inline = True

    async def on_call(self, call: ToolCall, call_next: CallNext) -> ToolResult:
        return await call_next(call)


def _registry(middleware: list[Middleware]) -> ToolRegistry:
    registry = ToolRegistry(timeout=None, middleware=middleware)
    registry.register(add)
    registry.register(aadd)
    return registry


def _three() -> list[Middleware]:
    huge = 10**9
    return [PassThrough(), RateLimit(per_caller=huge, per_tool=huge), ResultCache()]


@mcp_tool
async def aadd(a: int, b: int = 1) -> int:
    """Add two integers, asynchronously.

    Args:
        a: First.
        b: Second.
    """
    return a + b


def _per_call_sync(registry: ToolRegistry, calls: int, in_run: bool) -> float:
    args = {"a": 1}
    start = time.process_time_ns()
    if in_run:
        with registry.run(calls=10**9):
            for _ in range(calls):
                registry.call_sync("add", args)
    else:
        for _ in range(calls):
            registry.call_sync("add", args)
    return (time.process_time_ns() - start) / calls / 1000


def _per_call_async(registry: ToolRegistry, calls: int, in_run: bool) -> float:
    args = {"a": 1}

    async def loop() -> float:
        start = time.process_time_ns()
        if in_run:
            async with registry.run(calls=10**9):
                for _ in range(calls):
                    await registry.call("aadd", args)
        else:
            for _ in range(calls):
                await registry.call("aadd", args)
        return (time.process_time_ns() - start) / calls / 1000

    return asyncio.run(loop())


def _slot_check(times: int) -> float:
    """µs of the pipeline's one check when nothing is to run (registry and call without any)."""
    settings = ToolRegistry(timeout=None).settings
    start = time.process_time_ns()
    for _ in range(times):
        layers(settings.middleware, None)
    return (time.process_time_ns() - start) / times / 1000


Measure = Callable[[ToolRegistry, int, bool], float]


def _passes(measure: Measure, calls: int, passes: int) -> dict[str, list[float]]:
    plain, three = _registry([]), _registry(_three())
    for registry in (plain, three):  # warm up: schemas, validators, first-call work
        measure(registry, 200, False)
        measure(registry, 200, True)
    figures: dict[str, list[float]] = {"none": [], "three": [], "run": []}
    for _ in range(passes):
        figures["none"].append(measure(plain, calls, False))
        figures["three"].append(measure(three, calls, False))
        figures["run"].append(measure(plain, calls, True))
    return figures


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few calls, one pass")
    ns = parser.parse_args(argv)
    calls, passes = (300, 1) if ns.quick else (3_000, 9)
    console = Console(width=110)
    console.print(machine())
    table = Table(title=f"µs CPU per call, median of {passes} pass(es) of {calls} calls")
    for column in ("path", "none", "three middlewares", "added", "run budget", "added "):
        table.add_column(column, justify="right" if column != "path" else "left")
    out: dict[str, dict[str, float]] = {}
    for label, measure in (
        ("call_sync, sync tool", _per_call_sync),
        ("await call, async tool", _per_call_async),
    ):
        figures = _passes(measure, calls, passes)
        none = figures["none"]
        added = statistics.median(t - n for t, n in zip(figures["three"], none, strict=True))
        by_run = statistics.median(r - n for r, n in zip(figures["run"], none, strict=True))
        out[label] = {"none": statistics.median(none), "added": added, "run_added": by_run}
        table.add_row(
            label,
            f"{statistics.median(none):.1f}",
            f"{statistics.median(figures['three']):.1f}",
            f"{added:+.1f}",
            f"{statistics.median(figures['run']):.1f}",
            f"{by_run:+.1f}",
        )
    console.print(table)
    check = _slot_check(100_000 if not ns.quick else 1_000)
    console.print(f"the slot's check with no middleware and no run: {check * 1000:.0f} ns per call")
    worst = max(v["added"] for v in out.values())
    verdict = "met" if worst <= TARGET_US else "NOT met"
    console.print(
        f"three middlewares add at most {worst:.1f} µs per call ({verdict}: ≤ {TARGET_US:g} µs)"
    )
    return out


if __name__ == "__main__":
    main()
