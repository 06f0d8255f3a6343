"""Why a remote server's CPU per call rises behind a gateway: the gap between its requests.

Run: ``.venv/bin/python bench/bench_remote_gap.py [--quick] [--gap-ms G]``.

``bench_gateway.py`` finds the remote's CPU per call higher behind either gateway than when the
client calls it directly (ours and FastMCP's proxy alike). This bench asks whether that is the
gateway's doing (what it sends) or only the time it adds between one request and the next. One
``mcp.Client`` calls the same remote as ``bench_gateway.py`` (the SDK's ``MCPServer`` with one
``echo`` tool, over stdio) on four paths, each with a remote process of its own, in rotating
rounds:

* ``back to back``: the next call as soon as the last one returned, as a direct call;
* ``idle gap``: the client sleeps ``--gap-ms`` (default 1.5, about what a gateway adds to a call)
  after each call, so the remote waits that much longer for its next request;
* ``busy gap``: the client computes for ``--gap-ms`` instead, so other work runs between calls
  as the gateway's does;
* ``byte relay``: a process that only copies bytes both ways sits between the client and the
  remote, as a gateway does, but adds almost no time.

The figure is the remote process's CPU per call (``/proc``, a mean over the rounds) and its ratio
to ``back to back``. Were the rise the gateway's messages, the relay would show it and the gaps
would not; were it the time between requests, the gaps show it and the relay does not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import psutil
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._load import machine  # noqa: E402

PATHS = ("back to back", "idle gap", "busy gap", "byte relay")

_RELAY = (
    "import os, subprocess, sys, threading\n"
    "child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,"
    " bufsize=0)\n"
    "def pump(src, dst):\n"
    "    while chunk := os.read(src, 65536):\n"
    "        os.write(dst, chunk)\n"
    "threading.Thread(target=pump, args=(child.stdout.fileno(), 1), daemon=True).start()\n"
    "pump(0, child.stdin.fileno())\n"
    "child.stdin.close()\n"
    "child.wait()\n"
)


def _remote(tag: str) -> list[str]:
    """The remote's command line (``bench_gateway.py --remote stdio``), told apart by ``tag``."""
    return [sys.executable, str(ROOT / "bench" / "bench_gateway.py"), "--remote", "stdio", "0", tag]


def _burn(seconds: float) -> None:
    """Keep this CPU busy with ordinary Python work for ``seconds``."""
    end = time.perf_counter() + seconds
    scratch: dict[int, list[int]] = {}
    while time.perf_counter() < end:
        for i in range(200):
            scratch[i] = [i, i, i]


async def measure(rounds: int, calls: int, gap: float) -> dict[str, float]:
    """Each path's remote CPU per call in µs, a mean over rotating rounds."""
    async with AsyncExitStack() as stack:
        opened: dict[str, tuple[Client, psutil.Process]] = {}
        for k, path in enumerate(PATHS):
            tag = f"gap-path-{k}"
            command = _remote(tag)
            if path == "byte relay":
                command = [sys.executable, "-c", _RELAY, *command]
            client = await stack.enter_async_context(
                Client(StdioServerParameters(command=command[0], args=command[1:]))
            )
            remote = next(
                p
                for p in psutil.Process().children(recursive=True)
                if tag in p.cmdline() and "-c" not in p.cmdline()
            )
            opened[path] = (client, remote)
        for client, _ in opened.values():  # warm-up: imports, caches, first-call paths
            for i in range(max(5, calls // 4)):
                await client.call_tool("echo", {"text": f"warm {i}"})
        samples: dict[str, list[float]] = {path: [] for path in PATHS}
        for r in range(rounds):
            for path in PATHS[r % len(PATHS) :] + PATHS[: r % len(PATHS)]:
                client, remote = opened[path]
                before = sum(remote.cpu_times()[:2])
                for i in range(calls):
                    await client.call_tool("echo", {"text": f"hi {i}"})
                    if path == "idle gap":
                        await anyio.sleep(gap)
                    elif path == "busy gap":
                        _burn(gap)
                samples[path].append((sum(remote.cpu_times()[:2]) - before) / calls * 1e6)
    return {path: statistics.fmean(values) for path, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few calls only (smoke run)")
    parser.add_argument("--gap-ms", type=float, default=1.5, help="the gap after each call")
    parser.add_argument("--rounds", type=int, help="rotating rounds (default 12; 2 with --quick)")
    parser.add_argument("--calls", type=int, help="calls per path and round (default 50)")
    parsed = parser.parse_args(argv)
    rounds = parsed.rounds or (2 if parsed.quick else 12)
    calls = parsed.calls or (10 if parsed.quick else 50)
    if parsed.quick:
        print("--quick: figures are indicative only")
    cpu = anyio.run(measure, rounds, calls, parsed.gap_ms / 1e3)
    print(
        f"\nthe remote's CPU per call, {rounds} rotating rounds of {calls} calls per path, "
        f"gap {parsed.gap_ms:g} ms; {machine()} at the end"
    )
    print(f"{'path':<14} {'remote CPU µs':>14} {'/ back to back':>15}")
    for path in PATHS:
        print(f"{path:<14} {cpu[path]:>14.0f} {cpu[path] / cpu['back to back']:>15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
