"""Remote tool calls: our pool vs a raw ``mcp`` session kept open vs a new session per call.

Pool and raw session run side by side in alternating rounds (medians), so a burst of load
on this shared machine hits both alike; concurrency is measured on warm connections.

A new session per call is what ``langchain-mcp-adapters`` does by default (measured here with
the mcp 2.x client it cannot run with). Run: ``.venv/bin/python bench/bench_mcp_client.py``.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from adapters.mcp_client import McpClientPool
from toolkit.context import ToolContext

SERVER = Path(__file__).resolve().parents[1] / "tests/support/mcp_servers/echo_server.py"
N_SEQ = 400
ROUNDS = 8
N_NEW = 10


async def _per_call(n: int, call: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


async def _measure(
    target: str | StdioServerParameters, pool_config: dict[str, object]
) -> dict[str, float]:
    """Pool and raw session side by side, in alternating rounds so load hits both alike."""
    out: dict[str, float] = {}
    async with McpClientPool({"s": pool_config}) as pool, Client(target) as client:
        tool = next(t for t in await pool.tools("s") if t.remote_name == "echo")

        async def ours() -> object:
            return await tool.call({"text": "x"}, ToolContext())

        async def raw() -> object:
            return await client.call_tool("echo", {"text": "x"})

        await _per_call(20, ours)
        await _per_call(20, raw)
        pool_ms: list[float] = []
        raw_ms: list[float] = []
        for round_ in range(ROUNDS):
            order = [(ours, pool_ms), (raw, raw_ms)]
            for call, sink in order if round_ % 2 == 0 else reversed(order):
                sink.append(await _per_call(N_SEQ // ROUNDS, call))
        out["pool"], out["raw"] = statistics.median(pool_ms), statistics.median(raw_ms)
        out["pool_raw"] = statistics.median(p / r for p, r in zip(pool_ms, raw_ms, strict=True))

        slow = next(t for t in await pool.tools("s") if t.remote_name == "slow")
        single = await _per_call(3, lambda: slow.call({"ms": 100}, ToolContext()))

        async def burst(call: Callable[[], Awaitable[object]]) -> float:
            start = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for _ in range(20):
                    tg.start_soon(call)
            return (time.perf_counter() - start) * 1000

        async def ours_slow() -> object:
            return await slow.call({"ms": 100}, ToolContext())

        async def raw_slow() -> object:
            return await client.call_tool("slow", {"ms": 100})

        # The first burst opens the HTTP connections; measure warm bursts, alternating.
        await burst(ours_slow)
        await burst(raw_slow)
        ours_bursts, raw_bursts = [], []
        for _ in range(3):
            ours_bursts.append(await burst(ours_slow))
            raw_bursts.append(await burst(raw_slow))
        out["concurrent_ratio"] = statistics.median(ours_bursts) / single
        # The same 20 calls on the raw session: what the server and SDK cost without us.
        out["raw_concurrent_ratio"] = statistics.median(raw_bursts) / single

    async def fresh() -> None:
        async with Client(target) as client:
            await client.call_tool("echo", {"text": "x"})

    out["new"] = await _per_call(N_NEW, fresh)
    return out


def _http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Its stderr carries the SDK server's INFO log lines; this script prints timings only.
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)], stderr=subprocess.DEVNULL
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/mcp"


def main() -> None:
    stdio = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    rows = {"stdio": anyio.run(_measure, stdio, {"command": sys.executable, "args": [str(SERVER)]})}
    proc, url = _http_server()
    try:
        rows["http"] = anyio.run(_measure, url, {"url": url})
    finally:
        proc.terminate()
        proc.wait(10)
    print(
        f"{'transport':<10}{'pool ms':>10}{'raw ms':>10}{'new/call ms':>13}"
        f"{'pool/raw':>10}{'new/pool':>10}{'20x100ms/1':>12}{'raw 20x/1':>11}"
    )
    for name, r in rows.items():
        print(
            f"{name:<10}{r['pool']:>10.2f}{r['raw']:>10.2f}{r['new']:>13.1f}"
            f"{r['pool_raw']:>10.2f}{r['new'] / r['pool']:>10.0f}{r['concurrent_ratio']:>12.2f}"
            f"{r['raw_concurrent_ratio']:>11.2f}"
        )


if __name__ == "__main__":
    main()
