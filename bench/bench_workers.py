"""``toolkit serve --transport http --workers N`` against the SDK's ``MCPServer`` under uvicorn
workers: calls/s with 1, 2 and 4 workers, CPU per call and memory.

Run: ``.venv/bin/python bench/bench_workers.py [--quick]`` (about a minute; ``--quick`` is a
smoke run whose figures mean little).

Each configuration starts the real command (uvicorn workers running the app factory), waits
for ``/healthz``, warms up, then several client processes, each with several threads and one
keep-alive connection per thread, send ``tools/call`` requests for a tool that burns about
``--work-ms`` of CPU, for ``--seconds``. The ratio is calls/s against one worker; memory is the
mean resident set (RSS) and unique set (USS) of one worker process.

The server's CPU per call is the user + system CPU time of all its processes (the supervisor
and every worker) during the measured window, divided by the calls answered; less the tool's
own ``--work-ms``, it is what the server adds to each call (HTTP, MCP, the call path). Its
inverse is the throughput one core can give: on a machine with C free cores, N <= C workers can
answer about N times that.

The clients run on the same machine and take CPU from the workers: near-linear scaling needs
more cores than workers. The script prints the core count with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's packages, not an installed copy
_SCRIPT = Path(sys.executable).parent / "toolkit"
# The console script where mcp-toolkit is installed; ``python -m adapters`` (the same command)
# where only the checkout and its dependencies are on the path.
TOOLKIT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "adapters"]
TARGET = "bench.bench_workers:registry"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def burn(ms: float) -> int:
    """Spend about ``ms`` milliseconds of CPU, like a small business function.

    Args:
        ms: Milliseconds of CPU to spend.
    """
    # This thread's CPU: the process's would count the other calls running beside it.
    end, n = time.thread_time() + ms / 1000, 0
    while time.thread_time() < end:
        n += 1
    return n


def _tools() -> object:
    from toolkit import ToolRegistry

    reg = ToolRegistry()
    reg.register(burn)
    return reg


def sdk_app() -> Any:
    """The closest existing library in each worker: the SDK's ``MCPServer`` with the same
    function, stateless, replying JSON as ours does, plus the ``/healthz`` the script polls."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench", log_level="WARNING")
    server.tool()(burn)
    app = server.streamable_http_app(stateless_http=True, json_response=True)

    async def with_health(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/healthz":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        await app(scope, receive, send)

    return with_health


registry = _tools()  # what each worker serves


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _client(
    base: str,
    work_ms: float,
    start: float,
    seconds: float,
    threads: int,
    out: multiprocessing.Queue,  # type: ignore[type-arg]
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "burn", "arguments": {"ms": work_ms}},
    }
    counts = [0] * threads
    errors = [0] * threads
    stop = start + seconds

    def run(i: int) -> None:
        with httpx.Client(base_url=base, headers=ACCEPT, timeout=30) as http:
            http.get("/healthz")  # connect before the clock starts
            time.sleep(max(0.0, start - time.time()))
            while time.time() < stop:
                response = http.post("/mcp", json=body)
                if response.status_code == 200 and '"isError":false' in response.text:
                    counts[i] += 1
                else:
                    errors[i] += 1

    pool = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    out.put((sum(counts), sum(errors)))


def _load(base: str, work_ms: float, seconds: float, procs: int, threads: int) -> tuple[int, int]:
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    start = time.time() + 2.0  # every client connected and waiting: all start together
    clients = [
        multiprocessing.Process(target=_client, args=(base, work_ms, start, seconds, threads, out))
        for _ in range(procs)
    ]
    for c in clients:
        c.start()
    results = [out.get(timeout=seconds + 120) for _ in clients]
    for c in clients:
        c.join()
    return sum(r[0] for r in results), sum(r[1] for r in results)


def _cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            times = p.cpu_times()
            total += times.user + times.system
    return total


def _command(kind: str, workers: int, port: int) -> list[str]:
    if kind == "ours":
        return [*TOOLKIT, "serve", TARGET, "--transport", "http", "--port", str(port),
                "--workers", str(workers), "--metrics"]  # fmt: skip
    run = (
        "import uvicorn; uvicorn.run('bench.bench_workers:sdk_app', factory=True, "
        f"host='127.0.0.1', port={port}, workers={workers}, log_level='warning')"
    )
    return [sys.executable, "-c", run]


def _serve(kind: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    proc = subprocess.Popen(
        _command(kind, workers, port),
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"{workers} worker(s) did not answer /healthz (exit code {proc.poll()})")


def _workers(proc: subprocess.Popen[bytes]) -> list[psutil.Process]:
    tree = psutil.Process(proc.pid).children(recursive=True)
    found = [p for p in tree if "spawn_main" in " ".join(p.cmdline())]
    return found or [psutil.Process(proc.pid)]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    tree = psutil.Process(proc.pid).children(recursive=True)
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
    for child in tree:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()


@dataclass(frozen=True)
class Measure:
    """One server configuration under load."""

    rate: float
    errors: int
    cpu_us: float
    rss: float
    uss: float


def _measure(
    kind: str, workers: int, work_ms: float, seconds: float, procs: int, threads: int
) -> Measure:
    proc, base = _serve(kind, workers)
    try:
        _load(base, work_ms, 2.0, procs, threads)  # warm-up: every worker imports lazily
        # The supervisor and its workers (one worker: uvicorn runs it in the same process).
        server = list({p.pid: p for p in (psutil.Process(proc.pid), *_workers(proc))}.values())
        cpu_before = _cpu_seconds(server)
        calls, errors = _load(base, work_ms, seconds, procs, threads)
        cpu_us = (_cpu_seconds(server) - cpu_before) * 1e6 / max(1, calls)
        memory = [p.memory_full_info() for p in _workers(proc)]
        rss = statistics.mean(m.rss for m in memory) / 2**20
        uss = statistics.mean(m.uss for m in memory) / 2**20
        return Measure(calls / seconds, errors, cpu_us, rss, uss)
    finally:
        _stop(proc)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--work-ms", type=float, default=2.0)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--clients", type=int, default=0, help="client processes (0: by cores)")
    args = parser.parse_args()
    seconds = 1.0 if args.quick else args.seconds
    counts = [int(n) for n in args.workers.split(",")]
    cores = os.cpu_count() or 1
    procs = args.clients or (2 if args.quick else max(2, min(4, cores // 2)))
    threads = 4 if args.quick else 8
    rows: list[tuple[int, Measure, Measure]] = []
    for n in counts:
        # The same worker count for both, one after the other, while the machine is the same.
        rows.append((n, _measure("ours", n, args.work_ms, seconds, procs, threads),
                     _measure("sdk", n, args.work_ms, seconds, procs, threads)))  # fmt: skip
    base_rate = rows[0][1].rate or 1.0
    table = Table(
        title=f"toolkit serve --workers vs MCPServer under uvicorn --workers: {cores} CPU cores, "
        f"tool burns {args.work_ms:g} ms CPU, {procs} client processes x {threads} connections"
    )
    for column in (
        "workers",
        "ours calls/s",
        "ratio vs 1 worker",
        "ideal",
        "MCPServer calls/s",
        "ours / MCPServer",
        "errors (ours, theirs)",
        "server CPU µs/call (ours, theirs)",
        "of which the tool",
        "RSS/worker MiB (ours, theirs)",
        "USS/worker MiB (ours, theirs)",
    ):
        table.add_column(column, justify="right")
    for n, mine, theirs in rows:
        table.add_row(
            str(n), f"{mine.rate:.0f}", f"{mine.rate / base_rate:.2f}", f"{min(n, cores):d}",
            f"{theirs.rate:.0f}", f"{mine.rate / max(theirs.rate, 1e-9):.2f}",
            f"{mine.errors}, {theirs.errors}", f"{mine.cpu_us:,.0f}, {theirs.cpu_us:,.0f}",
            f"{args.work_ms * 1000:,.0f}", f"{mine.rss:.0f}, {theirs.rss:.0f}",
            f"{mine.uss:.0f}, {theirs.uss:.0f}",
        )  # fmt: skip
    Console().print(table)
    overhead = statistics.median(r[1].cpu_us for r in rows) - args.work_ms * 1000
    sdk_overhead = statistics.median(r[2].cpu_us for r in rows) - args.work_ms * 1000
    print(
        f"The clients share the {cores} cores with the workers: beyond the free cores, more "
        "workers cannot add throughput. Our server (with --metrics) adds about "
        f"{overhead:,.0f} µs of CPU to each call beyond the tool's own {args.work_ms:g} ms "
        f"(MCPServer: {sdk_overhead:,.0f} µs), so one free core answers about "
        f"{1e6 / max(overhead + args.work_ms * 1000, 1.0):,.0f} calls/s of this tool, and N "
        "workers on N free cores about N times that."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
