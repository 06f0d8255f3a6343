"""The core against ``langchain_core.tools.tool``: decorating, building schemas, call overhead.

Run: ``.venv/bin/python bench/bench_core.py [--quick] [--load N]`` (about a minute; ``--quick``
uses fewer functions and calls and one pass, for smoke runs in CI where the figures mean little).

* decorating N generated functions (CPU time of the whole batch) (3-5 typed parameters, Google
  docstrings): ``@mcp_tool`` builds nothing, ``@tool(parse_docstring=True)`` builds its pydantic
  model right away;
* building all N input schemas (``FunctionTool(fn).spec.input_schema`` vs
  ``tool.tool_call_schema.model_json_schema()``);
* the CPU one call of a trivial tool costs on each path, as the median CPU time per call
  (``time.process_time_ns``, which counts every thread of the process, worker threads
  included): ``call_sync`` (default timeout, and ``timeout=None``) vs ``tool.invoke(ToolCall)``,
  ``await registry.call`` vs ``await tool.ainvoke(ToolCall)`` for an async and a sync tool,
  and ``call_sync`` of a two-integer ``add(a, b)`` vs its ``invoke`` (with a ToolCall, as a model's
  tool call comes in, and with the bare arguments, which returns the value without a message).
  Each pass measures ours and langchain's one after the other in this process; the table shows
  the median of three passes, and the median of the three paired ratios. The paths are measured
  twice: on the machine as found (its load average is printed: "idle" only if it is near 0),
  and again while ``N`` processes (``--load``, default 1) each keep one CPU busy.

"speed-up" is langchain's figure divided by ours: above 1 we are faster; "ours / langchain" is
the other way round: below 1 we are cheaper.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from langchain_core.tools import BaseTool, tool
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._load import busy, machine
from toolkit import FunctionTool, ToolRegistry, mcp_tool
from toolkit.calls import _cpu

# (hint, default) pairs the generated parameters cycle through
_TYPES = [
    ("int", "3"),
    ("str", "'a'"),
    ("float", "1.5"),
    ("bool", "False"),
    ("list[str] | None", "None"),
    ("int | None", "None"),
    ("Literal['asc', 'desc']", "'asc'"),
]


@dataclass(frozen=True)
class Row:
    """One measurement: ours, langchain's, and the target ours must meet."""

    label: str
    ours: float
    theirs: float
    unit: str
    target: str
    met: bool | None


# -- generated business functions ---------------------------------------------------------------


def _function_source(i: int) -> str:
    """``op_i`` with 3-5 parameters (two required, the rest with defaults) and a docstring."""
    params, docs = [], []
    for j in range(3 + i % 3):
        hint, default = _TYPES[(i + j) % len(_TYPES)]
        params.append(f"p{j}_{i}: {hint}" + (f" = {default}" if j >= 2 else ""))
        docs.append(f"        p{j}_{i}: Parameter {j} of operation {i}.")
    return (
        f"def op_{i}({', '.join(params)}) -> dict[str, int]:\n"
        f'    """Run business operation number {i} on the warehouse.\n\n'
        f"    It looks things up and reports counts.\n\n"
        f"    Args:\n" + "\n".join(docs) + "\n\n"
        f"    Returns:\n        Counts by key.\n"
        f'    """\n'
        f"    return {{'n': {i}}}\n"
    )


def generate(count: int) -> list[Callable[..., Any]]:
    """``count`` distinct functions, compiled from source text."""
    namespace: dict[str, Any] = {}
    source = "from typing import Literal\n" + "\n".join(_function_source(i) for i in range(count))
    exec(compile(source, "<generated>", "exec"), namespace)
    return [namespace[f"op_{i}"] for i in range(count)]


def _timed(work: Callable[[], Any]) -> float:
    """CPU milliseconds of ``work()`` (steadier than wall time on a shared machine)."""
    gc.collect()  # so earlier garbage is not billed to this phase
    start = time.process_time_ns()
    work()
    return (time.process_time_ns() - start) / 1e6


def _ours_build(fns: list[Callable[..., Any]]) -> list[Any]:
    return [FunctionTool(f).spec.input_schema for f in fns]


def _theirs_build(tools: list[BaseTool]) -> list[Any]:
    return [t.tool_call_schema.model_json_schema() for t in tools]


def decorate_and_build(count: int) -> list[Row]:
    """Decorating ``count`` functions, then building every input schema."""
    warm = generate(5)  # first uses import and cache things in pydantic: bill them to no one
    _ours_build([mcp_tool(f) for f in warm])
    _theirs_build([tool(f, parse_docstring=True) for f in generate(5)])

    ours_fns, their_fns = generate(count), generate(count)
    decorated: list[Callable[..., Any]] = []
    tools: list[BaseTool] = []
    ours_decorate = _timed(lambda: decorated.extend(mcp_tool(f) for f in ours_fns))
    theirs_decorate = _timed(lambda: tools.extend(tool(f, parse_docstring=True) for f in their_fns))
    ours_schemas = _timed(lambda: _ours_build(decorated))
    theirs_schemas = _timed(lambda: _theirs_build(tools))
    budget = 50 * count / 1000
    return [
        Row(
            f"decorate {count} functions",
            ours_decorate,
            theirs_decorate,
            "ms CPU",
            f"ours ≤ {budget:g} ms",
            ours_decorate <= budget,
        ),
        Row(
            f"build {count} input schemas",
            ours_schemas,
            theirs_schemas,
            "ms CPU",
            "(reported)",
            None,
        ),
        # Judged together: langchain builds its argument model while decorating, we build ours
        # (and the output schema) on first use, so only the sum compares like with like.
        Row(
            "  decorate + build (the user's path to a schema)",
            ours_decorate + ours_schemas,
            theirs_decorate + theirs_schemas,
            "ms CPU",
            "ours ≤ 0.5x langchain",
            ours_decorate + ours_schemas <= 0.5 * (theirs_decorate + theirs_schemas),
        ),
    ]


# -- call overhead ------------------------------------------------------------------------------


def ping(x: int) -> int:
    """Return the number.

    Args:
        x: Any number.
    """
    return x


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


async def aping(x: int) -> int:
    """Return the number.

    Args:
        x: Any number.
    """
    return x


def _tool_call(name: str, i: int) -> dict[str, Any]:
    args = {"a": i, "b": 2} if name == "add" else {"x": i}
    return {"name": name, "args": args, "id": f"call_{i}", "type": "tool_call"}


def _median_us(samples: list[int]) -> float:
    return statistics.median(samples) / 1000


def cpu_per_call(call: Callable[[int], Any], calls: int, warmup: int) -> float:
    """Median CPU µs of ``call(i)``."""
    for i in range(warmup):
        call(i)
    gc.collect()
    samples = []
    clock = time.process_time_ns
    for i in range(calls):
        start = clock()
        call(i)
        samples.append(clock() - start)
    return _median_us(samples)


async def acpu_per_call(call: Callable[[int], Awaitable[Any]], calls: int, warmup: int) -> float:
    """Median CPU µs of ``await call(i)``."""
    for i in range(warmup):
        await call(i)
    gc.collect()
    samples = []
    clock = time.process_time_ns
    for i in range(calls):
        start = clock()
        await call(i)
        samples.append(clock() - start)
    return _median_us(samples)


@dataclass(frozen=True)
class CallRow:
    """CPU per call of one path under one condition: medians over the repeats."""

    label: str
    condition: str
    ours: float
    theirs: float
    ratio: float  # median of the per-repeat ratios ours / theirs
    target: str
    met: bool | None


#: path label -> (target text, judge(ours µs, ratio)); the targets of issue 28.
PATHS: dict[str, tuple[str, Callable[[float, float], bool | None]]] = {
    "call sync tool: call_sync / invoke (default timeout)": (
        "≤ 0.15x",
        lambda ours, ratio: ratio <= 0.15,
    ),
    "  same, registry timeout=None (runs in the caller's thread)": (
        "≤ 10 µs",
        lambda ours, ratio: ours <= 10,
    ),
    "  same, workers not pinned to the caller's CPU (TOOLKIT_PIN_WORKERS=0)": (
        "(reported)",
        lambda ours, ratio: None,
    ),
    "call two-integer tool add(a, b): call_sync / invoke (default timeout)": (
        "≤ 0.15x",
        lambda ours, ratio: ratio <= 0.15,
    ),
    "  same, against invoke of the bare arguments (no ToolCall, no ToolMessage)": (
        "(reported)",
        lambda ours, ratio: None,
    ),
    "call async tool: await call / ainvoke": ("≤ 0.10x", lambda ours, ratio: ratio <= 0.10),
    "await call of a sync tool (worker thread)": ("≤ 0.30x", lambda ours, ratio: ratio <= 0.30),
}


def _one_pass(calls: int) -> list[tuple[float, float]]:
    """(ours, langchain) median CPU µs per call of each path in :data:`PATHS`, in order."""
    registry = ToolRegistry()
    registry.register(ping)
    registry.register(aping)
    registry.register(add)
    lc_ping, lc_aping, lc_add = tool(ping), tool(aping), tool(add)
    warmup = max(calls // 10, 50)

    def check(result: Any, expected: int) -> None:
        assert not result.is_error and result.content == str(expected), result

    check(registry.call_sync("ping", {"x": 7}), 7)
    assert lc_ping.invoke(_tool_call("ping", 7)).content == "7"

    # With the default timeout call_sync waits for the function in a worker thread (so that it
    # can stop waiting); without one the function runs in the caller's thread.
    ours_sync = cpu_per_call(lambda i: registry.call_sync("ping", {"x": i}), calls, warmup)
    unlimited = ToolRegistry(timeout=None)
    unlimited.register(ping)
    check(unlimited.call_sync("ping", {"x": 7}), 7)
    ours_inline = cpu_per_call(lambda i: unlimited.call_sync("ping", {"x": i}), calls, warmup)
    theirs_sync = cpu_per_call(lambda i: lc_ping.invoke(_tool_call("ping", i)), calls, warmup)
    # What pinning buys on this machine now: the same calls with every hand-off left to the
    # scheduler (on an idle VM the woken thread lands on the other, sleeping CPU).
    reader, _cpu._reader[0] = _cpu._reader[0], None
    try:
        ours_unpinned = cpu_per_call(lambda i: registry.call_sync("ping", {"x": i}), calls, warmup)
    finally:
        _cpu._reader[0] = reader
    # The smallest tool with two validated arguments: what stays is the fixed cost of a call.
    check(registry.call_sync("add", {"a": 5, "b": 2}), 7)
    assert lc_add.invoke(_tool_call("add", 5)).content == "7"
    ours_add = cpu_per_call(lambda i: registry.call_sync("add", {"a": i, "b": 2}), calls, warmup)
    theirs_add = cpu_per_call(lambda i: lc_add.invoke(_tool_call("add", i)), calls, warmup)
    theirs_bare = cpu_per_call(lambda i: lc_add.invoke({"a": i, "b": 2}), calls, warmup)

    async def in_loop() -> tuple[float, float, float, float]:
        check(await registry.call("aping", {"x": 7}), 7)
        ours_async = await acpu_per_call(lambda i: registry.call("aping", {"x": i}), calls, warmup)
        theirs_async = await acpu_per_call(
            lambda i: lc_aping.ainvoke(_tool_call("aping", i)), calls, warmup
        )
        ours_thread = await acpu_per_call(lambda i: registry.call("ping", {"x": i}), calls, warmup)
        theirs_thread = await acpu_per_call(
            lambda i: lc_ping.ainvoke(_tool_call("ping", i)), calls, warmup
        )
        return ours_async, theirs_async, ours_thread, theirs_thread

    ours_async, theirs_async, ours_thread, theirs_thread = anyio.run(in_loop)
    return [
        (ours_sync, theirs_sync),
        (ours_inline, theirs_sync),
        (ours_unpinned, theirs_sync),
        (ours_add, theirs_add),
        (ours_add, theirs_bare),
        (ours_async, theirs_async),
        (ours_thread, theirs_thread),
    ]


def call_overhead(calls: int, repeats: int, condition: str) -> list[CallRow]:
    """Median CPU per call of each path over ``repeats`` passes, ours vs langchain."""
    passes = [_one_pass(calls) for _ in range(repeats)]
    rows = []
    for i, (label, (target, judge)) in enumerate(PATHS.items()):
        ours = statistics.median(p[i][0] for p in passes)
        theirs = statistics.median(p[i][1] for p in passes)
        ratio = statistics.median(p[i][0] / p[i][1] for p in passes)
        rows.append(CallRow(label, condition, ours, theirs, ratio, target, judge(ours, ratio)))
    return rows


# -- report -------------------------------------------------------------------------------------


def render(rows: list[Row], title: str) -> Table:
    """The rows as a rich table."""
    table = Table(title=title)
    for column in ("measure", "ours", "langchain", "speed-up", "target", "met"):
        table.add_column(column, justify="left" if column in ("measure", "target") else "right")
    for row in rows:
        met = "-" if row.met is None else ("[green]yes" if row.met else "[red]no")
        table.add_row(
            row.label,
            f"{row.ours:,.1f} {row.unit}",
            f"{row.theirs:,.1f} {row.unit}",
            f"{row.theirs / row.ours:,.1f}x",
            row.target,
            met,
        )
    return table


def render_calls(rows: list[CallRow], title: str) -> Table:
    """The call rows as a rich table (CPU µs per call, ratio ours / langchain)."""
    table = Table(title=title)
    for column in ("path", "condition", "ours", "langchain", "ours / langchain", "target", "met"):
        table.add_column(column, justify="left" if column in ("path", "condition") else "right")
    for row in rows:
        table.add_row(
            row.label,
            row.condition,
            f"{row.ours:,.1f} µs CPU",
            f"{row.theirs:,.1f} µs CPU",
            f"{row.ratio:.3f}x",
            row.target,
            "-" if row.met is None else ("[green]yes" if row.met else "[red]no"),
        )
    return table


def main(argv: list[str] | None = None) -> int:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument(
        "--load",
        type=int,
        default=None,
        help="busy processes for the second measurement (default: 1; 0 with --quick)",
    )
    args = parser.parse_args(argv)
    functions, calls, repeats = (100, 500, 1) if args.quick else (1000, 5000, 3)
    load = args.load if args.load is not None else (0 if args.quick else 1)
    console = Console(width=160)
    note = " (--quick: figures are indicative only)" if args.quick else ""
    console.print(
        render(
            decorate_and_build(functions),
            f"toolkit core vs langchain_core.tools.tool, {functions} functions{note}",
        )
    )
    rows = call_overhead(calls, repeats, f"as found ({machine()})")
    if load:
        with busy(load) as label:
            rows += call_overhead(calls, repeats, f"{label} ({machine()})")
    console.print(
        render_calls(
            rows,
            f"CPU per call (time.process_time, all threads), median of {repeats} passes of "
            f"{calls} calls; ratios paired within each pass{note}",
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
