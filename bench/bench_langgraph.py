"""LangGraph adapter overhead, as ratios against LangChain / LangGraph's own building blocks.

Run: ``.venv/bin/python bench/bench_langgraph.py [--quick]`` (about a minute; ``--quick`` is a
smoke run whose figures mean little).

1. One tool call through ``ToolNode`` in a one-node graph: our tool vs ``@tool`` (target <= 1.1).
2. One agent turn (model -> tool -> model) with a scripted model: ``build_agent`` vs LangChain's
   ``create_agent`` (target <= 1.1).
3. Ten concurrent calls of a 100 ms async tool and of a 100 ms sync tool in one turn: wall time
   over one call (target <= 1.5 for both), ours and theirs.

Every scenario is measured through ``invoke`` and ``ainvoke``. Made to be trusted on a busy
2-core machine: both sides are warmed up first (no cold first run), then measured in
alternating rounds (ours first, then theirs first, ...), so a burst of load from elsewhere
hits both; each cell is the median of the rounds' medians with the min-max range, and the
ratio is the median of the per-round ratios (ours / theirs: below 1.0 we are faster).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool as lc_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from rich.console import Console
from rich.table import Table

from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry, mcp_tool

warnings.filterwarnings("ignore")


@dataclass(frozen=True)
class Settings:
    """How much to measure."""

    rounds: int
    calls: int  # per round, for the fast scenarios
    slow_rounds: int  # rounds of the 10 x 100 ms turns


FULL = Settings(rounds=9, calls=60, slow_rounds=5)
QUICK = Settings(rounds=2, calls=5, slow_rounds=1)


def lookup(code: str, limit: int = 5) -> dict:
    """Look up a bin.

    Args:
        code: The bin code.
        limit: How many items.
    """
    return {"code": code, "items": limit}


async def slow_async(i: int) -> int:
    """Wait 100 ms."""
    await asyncio.sleep(0.1)
    return i


def slow_sync(i: int) -> int:
    """Block 100 ms."""
    time.sleep(0.1)
    return i


def _registry(*fns: Callable[..., Any]) -> ToolRegistry:
    registry = ToolRegistry()
    for fn in fns:
        registry.register(mcp_tool(fn))
    return registry


def _tool_node_graph(tools: list[Any]) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "tools")
    return builder.compile()


class _Side:
    """One side of a comparison: a graph, its input, and how to run it once."""

    def __init__(self, graph: Any, request: Any, how: str) -> None:
        self.graph, self.request, self.how = graph, request, how
        self.loop = asyncio.new_event_loop() if how == "ainvoke" else None

    def once(self) -> float:
        start = time.perf_counter()
        if self.loop is not None:
            self.loop.run_until_complete(self.graph.ainvoke(self.request))
        else:
            self.graph.invoke(self.request)
        return time.perf_counter() - start

    def round(self, calls: int) -> float:
        return statistics.median(self.once() for _ in range(calls))

    def close(self) -> None:
        if self.loop is not None:
            self.loop.close()


@dataclass(frozen=True)
class Row:
    """Per-round medians of both sides, in seconds."""

    label: str
    how: str
    ours: list[float]
    theirs: list[float]
    anchor: str
    base: float | None = None  # for concurrency rows: one call's time

    def ratios(self) -> list[float]:
        return [o / t for o, t in zip(self.ours, self.theirs, strict=False)]


def compare(
    label: str, anchor: str, ours: _Side, theirs: _Side, rounds: int, calls: int, warm: int = 3
) -> Row:
    """Warm both sides, then alternate rounds of ``calls`` runs."""
    sides = (ours, theirs)
    for side in sides:
        for _ in range(max(warm, calls // 5)):
            side.once()
    samples: list[list[float]] = [[], []]
    for r in range(rounds):
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            samples[i].append(sides[i].round(calls))
    for side in sides:
        side.close()
    return Row(label, ours.how, samples[0], samples[1], anchor)


def _agent_turns(messages: list[BaseMessage], tools: list[str]) -> Any:
    if isinstance(messages[-1], ToolMessage):
        return "done"
    return {"tool_calls": [{"name": "lookup", "args": {"code": "B"}}]}


def _endless(turn: Any) -> ScriptedChatModel:
    return ScriptedChatModel(turns=[turn] * 1_000_000)


def scenarios(settings: Settings) -> list[Row]:
    rows = []
    call = {
        "messages": [
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"code": "B"}, "id": "c"}])
        ]
    }
    request = {"messages": [("user", "go")]}
    for how in ("invoke", "ainvoke"):
        ours = _Side(_tool_node_graph(to_langchain_tools(_registry(lookup))), call, how)
        theirs = _Side(_tool_node_graph([lc_tool(lookup)]), call, how)
        rows.append(
            compare("ToolNode, one call", "@tool", ours, theirs, settings.rounds, settings.calls)
        )
    for how in ("invoke", "ainvoke"):
        ours = _Side(build_agent(_endless(_agent_turns), _registry(lookup)), request, how)
        theirs = _Side(create_agent(_endless(_agent_turns), [lc_tool(lookup)]), request, how)
        rows.append(
            compare(
                "agent turn (2 model + 1 tool)",
                "create_agent",
                ours,
                theirs,
                settings.rounds,
                settings.calls,
            )
        )
    for name, fn in (("slow_async", slow_async), ("slow_sync", slow_sync)):

        def turns(n: int, name: str = name) -> Any:
            calls = [{"name": name, "args": {"i": i}} for i in range(n)]

            def turn(messages: list[BaseMessage], tools: list[str]) -> Any:
                return "done" if isinstance(messages[-1], ToolMessage) else {"tool_calls": calls}

            return turn

        for how in ("invoke", "ainvoke"):
            single = _Side(build_agent(_endless(turns(1)), _registry(fn)), request, how)
            single.once()  # warm-up
            base = statistics.median(single.once() for _ in range(1 + settings.slow_rounds))
            single.close()
            ours = _Side(build_agent(_endless(turns(10)), _registry(fn)), request, how)
            if fn is slow_async and how == "invoke":
                # LangChain cannot run an async tool from sync invoke (NotImplementedError);
                # our sync entry point runs it on the background loop.
                ours.once()
                times = [ours.once() for _ in range(settings.slow_rounds)]
                rows.append(Row(f"10 x 100 ms {name}", how, times, [], "n/a", base))
                continue
            theirs = _Side(create_agent(_endless(turns(10)), [lc_tool(fn)]), request, how)
            row = compare(
                f"10 x 100 ms {name}", "create_agent", ours, theirs, settings.slow_rounds, 1, 1
            )
            rows.append(Row(row.label, how, row.ours, row.theirs, row.anchor, base))
    return rows


def _span(values: Sequence[float], scale: float, fmt: str) -> str:
    v = [x * scale for x in values]
    return f"{statistics.median(v):{fmt}} ({min(v):{fmt}}-{max(v):{fmt}})"


def table(rows: list[Row], settings: Settings) -> Table:
    t = Table(
        title=f"LangGraph adapter: {settings.rounds} alternating rounds of {settings.calls} "
        f"runs ({settings.slow_rounds} for the 10 x 100 ms turns); medians (min-max)"
    )
    for column in ("", "entry", "ours", "theirs", "anchor", "ours / theirs (range)", "x one call"):
        t.add_column(column, justify="left" if column in ("", "entry", "anchor") else "right")
    for row in rows:
        slow = row.base is not None
        scale, unit = (1e3, "ms") if slow else (1e6, "µs")
        per_one = ""
        if row.base is not None:
            per_one = f"{statistics.median(row.ours) / row.base:.2f}"
            if row.theirs:
                per_one += f" / {statistics.median(row.theirs) / row.base:.2f}"
        t.add_row(
            row.label,
            row.how,
            _span(row.ours, scale, ".0f") + f" {unit}",
            _span(row.theirs, scale, ".0f") + f" {unit}" if row.theirs else "cannot run",
            row.anchor,
            _span(row.ratios(), 1, ".2f") if row.theirs else "",
            per_one,
        )
    return t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few runs only (smoke run)")
    quick = parser.parse_args(argv).quick
    settings = QUICK if quick else FULL
    console = Console(width=160)
    if quick:
        console.print("--quick: figures are indicative only")
    started = time.perf_counter()
    console.print(table(scenarios(settings), settings))
    console.print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
