"""The new-session-per-call anchor, run by bench_mcp_client.py in a venv with langchain-mcp-adapters.

``python _lcmcp_anchor.py SPEC_JSON N``: load the tools of one server the way
langchain-mcp-adapters does by default (``MultiServerMCPClient(...).get_tools()``, no session
kept), call ``echo`` N times through the LangChain tool (each call opens its own session) and
print ``{"median_ms": ...}``. It imports nothing from this project (it needs ``mcp<2``).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time


async def main(spec: dict[str, object], n: int) -> float:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"s": spec})  # type: ignore[dict-item]
    tools = {t.name: t for t in await client.get_tools()}
    echo = tools["echo"]
    await echo.ainvoke({"text": "x"})  # warm-up: imports and first-call paths
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await echo.ainvoke({"text": "x"})
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


if __name__ == "__main__":
    median = asyncio.run(main(json.loads(sys.argv[1]), int(sys.argv[2])))
    print(json.dumps({"median_ms": median}))
