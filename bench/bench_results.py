"""What the result budget costs: cutting oversized results, and the small result's call.

Run: ``.venv/bin/python bench/bench_results.py [--quick]`` (about half a minute; ``--quick``
uses smaller results and fewer repeats, for smoke runs where the figures mean little).

* **cut**: ``fit_result`` on a result already in hand (a server log, a JSON list of rows, the
  same rows as JSON text with no structured copy, a JSON report object), at the default budget (100,000 characters), the full text kept in the
  memory store: the median CPU time, and that time per MB of result (the target: under 5 ms
  per MB).
* **call**: the same tool called through ``registry.call_sync`` with the budget off and on, so
  the cut is seen beside what the plain call already costs (building the value, serializing it).
* **small result**: a trivial tool's ``call_sync`` with the default budget and with the budget
  off (median CPU per call over many calls): a result under the budget is handed on as the very
  same object, so the two should not differ beyond noise.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._load import machine
from toolkit import CallOptions, TextContent, ToolRegistry, mcp_tool
from toolkit.results.budget import DEFAULT_RESULT_BUDGET, NO_BUDGET, fit_result
from toolkit.results.store import MemoryResultStore

MB = 1_000_000


def _log(mb: float) -> str:
    line = "2026-11-27T10:00:00Z INFO worker-3 handled GET /orders/12345 in 17 ms\n"
    return line * int(mb * MB / len(line))


def _rows(mb: float) -> list[dict[str, Any]]:
    return [
        {"id": i, "sku": f"S-{i:07d}", "qty": i % 97, "price": i / 7, "ok": True}
        for i in range(int(mb * MB / 75))
    ]


def _report(mb: float) -> dict[str, Any]:
    rows = int(mb * MB / 2 / 25)
    return {"total": rows, "rows": [{"id": i} for i in range(rows)], "text": "x" * (rows * 25)}


@mcp_tool
def server_log(mb: float) -> Any:
    """A log."""
    return _log(mb)


@mcp_tool
def rows(mb: float) -> Any:
    """Rows."""
    return _rows(mb)


@mcp_tool
def report(mb: float) -> Any:
    """A report."""
    return _report(mb)


@mcp_tool
def rows_text(mb: float) -> TextContent:
    """Rows as JSON text only (a remote server's text block, no structured copy)."""
    return TextContent(text=json.dumps(_rows(mb), indent=1))


@mcp_tool
def tiny(a: int) -> int:
    """A small result."""
    return a + 1


def _median_cpu_ms(fn: Callable[[], Any], repeats: int) -> float:
    """Median CPU milliseconds of ``fn`` (CPU, not wall: this machine's load would swamp it)."""
    times = []
    for _ in range(repeats):
        start = time.process_time_ns()
        fn()
        times.append((time.process_time_ns() - start) / 1e6)
    return statistics.median(times)


def _row(registry: ToolRegistry, shape: str, mb: float, repeats: int) -> str:
    whole = CallOptions(result_budget=NO_BUDGET)
    result = registry.call_sync(shape, {"mb": mb}, options=whole)
    size = len(result.content) / MB
    store = MemoryResultStore()
    cut = functools.partial(
        fit_result, result, DEFAULT_RESULT_BUDGET, call_id="c", context_values={}, store=store
    )
    cut_ms = _median_cpu_ms(cut, repeats)
    plain = _median_cpu_ms(
        functools.partial(registry.call_sync, shape, {"mb": mb}, options=whole), 3
    )
    budgeted = _median_cpu_ms(functools.partial(registry.call_sync, shape, {"mb": mb}), 3)
    return (
        f"{'cut ' + shape:<16}{size:>6.1f}{cut_ms:>9.2f}{cut_ms / size:>8.2f}"
        f"{plain:>12.1f}{budgeted:>12.1f}"
    )


def _cpu_us(fn: Callable[[], Any], calls: int) -> float:
    """Median CPU microseconds per call of ``fn``."""
    times = []
    for _ in range(calls):
        start = time.process_time_ns()
        fn()
        times.append(time.process_time_ns() - start)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small results, few repeats")
    quick = parser.parse_args().quick
    sizes = [1, 4] if quick else [1, 10, 50]
    repeats = 3 if quick else 7
    print(machine())
    registry = ToolRegistry(timeout=None)
    for tool in (server_log, rows, rows_text, report, tiny):
        registry.register(tool)
    print(f"budget {DEFAULT_RESULT_BUDGET:,} characters; CPU ms, median of {repeats} runs")
    print(f"{'':<16}{'MB':>6}{'cut':>9}{'ms/MB':>8}{'plain call':>12}{'cut call':>12}")
    for shape in ("server_log", "rows", "rows_text", "report"):
        for mb in sizes if shape == "server_log" else sizes[:2]:
            print(_row(registry, shape, mb, repeats))
    calls = 2_000 if quick else 20_000
    whole = CallOptions(result_budget=NO_BUDGET)
    on = _cpu_us(functools.partial(registry.call_sync, "tiny", {"a": 1}), calls)
    off = _cpu_us(functools.partial(registry.call_sync, "tiny", {"a": 1}, options=whole), calls)
    print(f"small result, budget on   {on:8.1f} µs CPU per call_sync")
    print(f"small result, budget off  {off:8.1f} µs CPU per call_sync")


if __name__ == "__main__":
    main()
