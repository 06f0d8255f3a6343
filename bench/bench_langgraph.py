"""LangGraph adapter overhead, as ratios against LangChain / LangGraph's own building blocks.

Run: ``.venv/bin/python bench/bench_langgraph.py`` (about 20 s).

1. One tool call through ``ToolNode`` in a one-node graph: our tool vs ``@tool`` (target <= 1.1).
2. One agent turn (model -> tool -> model) with a scripted model: ``build_agent`` vs
   ``create_react_agent`` (target <= 1.1).
3. Ten concurrent calls of a 100 ms async tool and of a 100 ms sync tool in one turn: wall time
   over one call (target <= 1.5 for both).
"""

from __future__ import annotations

import asyncio
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool as lc_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent

from adapters.langchain import to_langchain_tools
from adapters.langgraph import build_agent
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry, mcp_tool

warnings.filterwarnings("ignore")


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


def _median_us(fn: Callable[[], Any], runs: int) -> float:
    for _ in range(20):
        fn()
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def _tool_node_graph(tools: list[Any]) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "tools")
    return builder.compile()


def _registry(*fns: Callable[..., Any]) -> ToolRegistry:
    registry = ToolRegistry()
    for fn in fns:
        registry.register(mcp_tool(fn))
    return registry


def bench_tool_node(runs: int = 400) -> tuple[float, float]:
    ours = _tool_node_graph(to_langchain_tools(_registry(lookup)))
    theirs = _tool_node_graph([lc_tool(lookup)])
    call = {
        "messages": [
            AIMessage("", tool_calls=[{"name": "lookup", "args": {"code": "B"}, "id": "c"}])
        ]
    }
    return _median_us(lambda: ours.invoke(call), runs), _median_us(
        lambda: theirs.invoke(call), runs
    )


def _agent_turns(messages: list[BaseMessage], tools: list[str]) -> Any:
    if isinstance(messages[-1], ToolMessage):
        return "done"
    return {"tool_calls": [{"name": "lookup", "args": {"code": "B"}}]}


def bench_agent(runs: int = 200) -> tuple[float, float]:
    total = 2 * (runs + 20)
    ours = build_agent(ScriptedChatModel(turns=[_agent_turns] * total), _registry(lookup))
    theirs = create_react_agent(ScriptedChatModel(turns=[_agent_turns] * total), [lc_tool(lookup)])
    request = {"messages": [("user", "go")]}
    return _median_us(lambda: ours.invoke(request), runs), _median_us(
        lambda: theirs.invoke(request), runs
    )


def _wall(agent: Any) -> float:
    t0 = time.perf_counter()
    asyncio.run(agent.ainvoke({"messages": [("user", "go")]}))
    return time.perf_counter() - t0


def bench_concurrency(name: str, fn: Callable[..., Any]) -> tuple[float, float, float]:
    def model(n: int) -> ScriptedChatModel:
        calls = [{"name": name, "args": {"i": i}} for i in range(n)]
        return ScriptedChatModel(turns=[{"tool_calls": calls}, "done"])

    single = _wall(build_agent(model(1), _registry(fn)))
    ours = _wall(build_agent(model(10), _registry(fn)))
    theirs = _wall(create_react_agent(model(10), [lc_tool(fn)]))
    return single, ours, theirs


def main() -> None:
    ours, theirs = bench_tool_node()
    print(
        f"ToolNode, one call      ours {ours:7.0f} us   @tool {theirs:7.0f} us   ratio {ours / theirs:.2f}"
    )
    ours, theirs = bench_agent()
    print(
        f"agent turn (2 model + 1 tool)  build_agent {ours:7.0f} us   create_react_agent {theirs:7.0f} us   ratio {ours / theirs:.2f}"
    )
    for name, fn in (("slow_async", slow_async), ("slow_sync", slow_sync)):
        single, ours, theirs = bench_concurrency(name, fn)
        print(
            f"10 x 100 ms {name:10s}  one call {single * 1000:5.0f} ms   build_agent {ours * 1000:5.0f} ms "
            f"(x{ours / single:.2f})   create_react_agent {theirs * 1000:5.0f} ms (x{theirs / single:.2f})"
        )


if __name__ == "__main__":
    main()
