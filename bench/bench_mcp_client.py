"""Remote tool calls: the user's path and our pool vs a raw ``mcp`` session kept open, and a
new session per call.

* ``registry.call`` (what users and every sink call: validation, policy, record) and the pooled
  tool alone, against a raw persistent ``mcp`` 2.x session: the three run side by side in
  rotating rounds (each one first in turn), so a burst of load on this shared machine hits
  all alike; cells are medians of the rounds with the min-max range;
* a new session per call: what ``langchain-mcp-adapters`` does by default. It needs ``mcp<2``,
  so it runs in a child process from its own venv: ``.peers/lcmcp-venv`` or the Python named by
  ``BENCH_LCMCP_PYTHON`` (``python3 -m venv .peers/lcmcp-venv && .peers/lcmcp-venv/bin/pip
  install langchain-mcp-adapters`` where the package index has it; the local offline index does
  not). Without it the row uses the raw ``mcp`` 2.x client and says so;
* 20 concurrent 100 ms calls on warm connections, over one call.

Run: ``.venv/bin/python bench/bench_mcp_client.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from adapters.mcp_client import McpClientPool
from toolkit import ToolRegistry
from toolkit.context import ToolContext

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests/support/mcp_servers/echo_server.py"
# A venv with langchain-mcp-adapters (and so mcp<2); BENCH_LCMCP_PYTHON names another one.
ANCHOR_PYTHON = Path(os.environ.get("BENCH_LCMCP_PYTHON", ROOT / ".peers/lcmcp-venv/bin/python"))
ANCHOR_SCRIPT = Path(__file__).resolve().parent / "_lcmcp_anchor.py"
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
) -> dict[str, Any]:
    """The user's path, the pool and a raw session side by side, in rotating rounds."""
    out: dict[str, Any] = {}
    async with McpClientPool({"s": pool_config}) as pool, Client(target) as client:
        tool = next(t for t in await pool.tools("s") if t.remote_name == "echo")
        registry = ToolRegistry()
        await pool.register_into(registry)
        name = next(n for n in registry.names() if n.endswith("echo"))

        async def user() -> object:
            return await registry.call(name, {"text": "x"})

        async def ours() -> object:
            return await tool.call({"text": "x"}, ToolContext())

        async def raw() -> object:
            return await client.call_tool("echo", {"text": "x"})

        sides = [user, ours, raw]
        samples: list[list[float]] = [[], [], []]
        for call in sides:
            await _per_call(20, call)
        for round_ in range(ROUNDS):
            for k in range(3):  # rotate: each side goes first in turn
                i = (round_ + k) % 3
                samples[i].append(await _per_call(N_SEQ // ROUNDS, sides[i]))
        user_ms, pool_ms, raw_ms = samples
        out["user"], out["pool"], out["raw"] = (statistics.median(x) for x in samples)
        out["user_span"] = (min(user_ms), max(user_ms))
        out["pool_span"] = (min(pool_ms), max(pool_ms))
        out["raw_span"] = (min(raw_ms), max(raw_ms))
        out["user_raw"] = _ratios(user_ms, raw_ms)
        out["pool_raw"] = _ratios(pool_ms, raw_ms)

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

    out["new"], out["new_by"] = await _new_session_per_call(target)
    return out


def _ratios(mine: list[float], theirs: list[float]) -> tuple[float, float, float]:
    """Median, min and max of the per-round ratios."""
    ratios = [m / t for m, t in zip(mine, theirs, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


async def _new_session_per_call(target: str | StdioServerParameters) -> tuple[float, str]:
    """Median ms of a call that opens its own session: langchain-mcp-adapters if installed."""
    if ANCHOR_PYTHON.exists():
        if isinstance(target, str):
            spec: dict[str, object] = {"transport": "streamable_http", "url": target}
        else:
            spec = {"transport": "stdio", "command": target.command, "args": list(target.args)}
        done = await anyio.run_process(
            [str(ANCHOR_PYTHON), str(ANCHOR_SCRIPT), json.dumps(spec), str(N_NEW)],
            env={**os.environ, "PYTHONPATH": ""},
            check=False,
        )
        if done.returncode == 0:
            return float(json.loads(done.stdout)["median_ms"]), "langchain-mcp-adapters"
        print(f"langchain-mcp-adapters anchor failed: {done.stderr.decode()[-500:]}")

    async def fresh() -> None:
        async with Client(target) as client:
            await client.call_tool("echo", {"text": "x"})

    return await _per_call(N_NEW, fresh), "raw mcp 2.x (no .peers/lcmcp-venv)"


def _http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # Its stderr carries the SDK server's INFO log lines; this script prints timings only.
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)], stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60  # a busy machine can take a while to start Python
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"the echo server did not listen on port {port}") from None
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}/mcp"


def _span(median: float, span: tuple[float, float]) -> str:
    return f"{median:.2f} ({span[0]:.2f}-{span[1]:.2f})"


def main(argv: list[str] | None = None) -> int:
    global N_SEQ, ROUNDS, N_NEW
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few calls only (smoke run)")
    if parser.parse_args(argv).quick:
        N_SEQ, ROUNDS, N_NEW = 30, 3, 2
        print("--quick: figures are indicative only")
    stdio = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    rows = {"stdio": anyio.run(_measure, stdio, {"command": sys.executable, "args": [str(SERVER)]})}
    proc, url = _http_server()
    try:
        rows["http"] = anyio.run(_measure, url, {"url": url})
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"{ROUNDS} rotating rounds of {N_SEQ // ROUNDS} calls; ms per call, median (min-max)")
    for name, r in rows.items():
        user_raw, pool_raw = r["user_raw"], r["pool_raw"]
        print(
            f"{name:<6} registry.call {_span(r['user'], r['user_span'])}   "
            f"pooled tool {_span(r['pool'], r['pool_span'])}   "
            f"raw session {_span(r['raw'], r['raw_span'])}"
        )
        print(
            f"{'':<6} registry.call/raw {user_raw[0]:.2f} ({user_raw[1]:.2f}-{user_raw[2]:.2f})   "
            f"pooled/raw {pool_raw[0]:.2f} ({pool_raw[1]:.2f}-{pool_raw[2]:.2f})"
        )
        print(
            f"{'':<6} new session per call {r['new']:.1f} ms [{r['new_by']}] = "
            f"{r['new'] / r['user']:.0f}x registry.call   "
            f"20x100ms/1 ours {r['concurrent_ratio']:.2f}  raw {r['raw_concurrent_ratio']:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
