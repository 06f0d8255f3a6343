"""Our MCP server vs the SDK's ``MCPServer``: the same trivial tool, the same client.

Run: ``.venv/bin/python bench/bench_mcp_server.py [--quick]`` (about 1.5 minutes; ``--quick``
is a smoke run whose figures mean little).

* sequential ``tools/call`` per second over stdio, over streamable HTTP (stateless) and
  in-process (no transport), with ``mcp.Client`` in both protocol generations; the in-process
  calls are measured again while ``--load N`` processes (default 1) each keep a CPU busy, and
  every table title states the load average it was measured under;
* ``tools/list`` of a 1000-tool registry (1000 distinct functions, so both sides build 1000
  schemas): build time, build plus the first listing (our schemas are built lazily, so that is
  the fair figure), listing time and bytes.

Replies over HTTP are compared in the same format: our JSON replies against ``MCPServer``'s
``json_response=True``, our SSE replies against its default SSE stream.

Made to be trusted on a busy 2-core machine: both servers are started once per scenario and
measured in alternating rounds (ours first, then theirs first, ...), so a burst of load from
elsewhere hits both; each cell is the median of the rounds (min-max in parentheses), and the
ratio's spread is the range of the per-round paired ratios. "server CPU" is the server process's own CPU time per
call (``psutil``, mean over all rounds), which load from other processes barely moves;
in-process it is the CPU of the whole process, client included (the same client for both).

Both servers run with ``WARNING`` logging. ``MCPServer`` configures the root logger at
``INFO`` with a Rich console handler by default, which prints a line per HTTP request for it
and, in-process, a line per call for us (our invoker logs each call at ``INFO``): that would
measure the terminal, not the servers.

Ratios are ours / theirs for rates (above 1.0 we are faster) and theirs / ours for time, CPU
and bytes (above 1.0 we are cheaper or smaller).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import time
import types
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.mcp_server import build_server, http_app, run_stdio  # noqa: E402
from adapters.mcp_server._http import uvicorn_config  # noqa: E402
from bench._load import busy, machine  # noqa: E402
from bench._server_cpu import report, serve  # noqa: E402
from toolkit import ToolRegistry, mcp_tool  # noqa: E402

MODES = ("auto", "legacy")


@dataclass(frozen=True)
class Settings:
    """How much to measure."""

    rounds: int
    calls: int
    http_calls: int
    list_tools: int


FULL = Settings(rounds=15, calls=150, http_calls=80, list_tools=1000)
QUICK = Settings(rounds=2, calls=20, http_calls=20, list_tools=50)


def echo(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: What to send back.
    """
    return text


async def aecho(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: What to send back.
    """
    return text


def _fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object with ``fn``'s code: nothing cached on it, one schema to build."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    copy.__doc__, copy.__annotations__ = fn.__doc__, dict(fn.__annotations__)
    return copy


def ours(count: int = 1, fn: Callable[..., Any] = echo) -> Any:
    registry = ToolRegistry()
    for i in range(count):
        registry.register(mcp_tool(_fresh(fn)), name="echo" if count == 1 else f"tool_{i}")
    return build_server(registry, name="bench")


def anchor(count: int = 1, fn: Callable[..., Any] = echo) -> MCPServer:
    server = MCPServer("bench", log_level="WARNING")
    for i in range(count):
        server.add_tool(_fresh(fn), name="echo" if count == 1 else f"tool_{i}")
    return server


FACTORIES = {"ours": ours, "anchor": anchor}


# -- one server, one connection ------------------------------------------------------------


@dataclass
class Peer:
    """A connected client and the process whose CPU its calls cost (None: this process)."""

    client: Client
    process: psutil.Process | None

    def cpu(self) -> float:
        if self.process is None:
            return time.process_time()
        times = self.process.cpu_times()
        return float(times.user + times.system)


@dataclass(frozen=True)
class Sample:
    """One round of sequential calls against one server."""

    rate: float  # calls per second
    cpu_us: float  # server CPU per call


async def _round(peer: Peer, calls: int) -> Sample:
    cpu0, start = peer.cpu(), time.perf_counter()
    for i in range(calls):
        await peer.client.call_tool("echo", {"text": f"hi {i}"})
    elapsed = time.perf_counter() - start
    return Sample(calls / elapsed, (peer.cpu() - cpu0) / calls * 1e6)


def _child(kind: str, transport: str, port: int = 0) -> list[str]:
    return [sys.executable, __file__, "--serve", kind, transport, str(port)]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@asynccontextmanager
async def _stdio_peer(kind: str, mode: str) -> AsyncIterator[Peer]:
    cmd = _child(kind, "stdio")
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=_env())
    async with Client(params, mode=mode) as client:
        spawned = [p for p in me.children(recursive=True) if p.pid not in before]
        yield Peer(client, spawned[0] if len(spawned) == 1 else None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def _http_server(kind: str) -> AsyncIterator[tuple[str, psutil.Process]]:
    port = _free_port()
    proc = subprocess.Popen(_child(kind, "http", port), env=_env())
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                await anyio.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", psutil.Process(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)


@asynccontextmanager
async def _http_peer(server: tuple[str, psutil.Process], mode: str) -> AsyncIterator[Peer]:
    url, process = server
    async with Client(url, mode=mode) as client:
        yield Peer(client, process)


@asynccontextmanager
async def _local_peer(kind: str, fn: Callable[..., Any], mode: str) -> AsyncIterator[Peer]:
    async with Client(FACTORIES[kind](fn=fn), mode=mode) as client:
        yield Peer(client, None)


# -- paired comparison ---------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """Medians of ours and theirs over the rounds, and the per-round ratio range."""

    label: str
    ours: list[Sample]
    theirs: list[Sample]

    def ratios(self) -> list[float]:
        return [o.rate / t.rate for o, t in zip(self.ours, self.theirs, strict=True)]


async def compare(
    label: str,
    mine: AbstractAsyncContextManager[Peer],
    theirs: AbstractAsyncContextManager[Peer],
    settings: Settings,
    calls: int,
) -> Row:
    """Alternate rounds of ``calls`` sequential calls against both servers."""
    async with AsyncExitStack() as stack:
        peers = [await stack.enter_async_context(mine), await stack.enter_async_context(theirs)]
        for peer in peers:  # warm-up: imports, caches, first-call paths
            await _round(peer, max(5, calls // 10))
        samples: list[list[Sample]] = [[], []]
        for r in range(settings.rounds):
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for side in order:
                samples[side].append(await _round(peers[side], calls))
    return Row(label, samples[0], samples[1])


async def transports(settings: Settings) -> list[Row]:
    rows = []
    for mode in MODES:
        rows.append(
            await compare(
                f"stdio {mode}",
                _stdio_peer("ours", mode),
                _stdio_peer("anchor", mode),
                settings,
                settings.calls,
            )
        )
    # Like with like: our JSON replies against MCPServer's json_response=True, and our SSE
    # replies (json_response=False) against its default SSE stream.
    for ours_kind, anchor_kind, fmt in (
        ("ours", "anchor_json", "JSON"),
        ("ours_sse", "anchor", "SSE"),
    ):
        async with _http_server(ours_kind) as mine, _http_server(anchor_kind) as theirs:
            for mode in MODES:
                rows.append(
                    await compare(
                        f"http {mode}, both {fmt}",
                        _http_peer(mine, mode),
                        _http_peer(theirs, mode),
                        settings,
                        settings.http_calls,
                    )
                )
    return rows


async def in_process(settings: Settings) -> list[Row]:
    rows = []
    for fn in (echo, aecho):
        for mode in MODES:
            rows.append(
                await compare(
                    f"{'sync' if fn is echo else 'async'} tool, {mode}",
                    _local_peer("ours", fn, mode),
                    _local_peer("anchor", fn, mode),
                    settings,
                    settings.calls,
                )
            )
    return rows


# -- tools/list ----------------------------------------------------------------------------


async def _listing(server: Any) -> tuple[float, int]:
    async with Client(server, mode="legacy") as client:
        await client.list_tools()
        start = time.perf_counter()
        result = await client.list_tools(cache_mode="refresh")
        elapsed = time.perf_counter() - start
    body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return elapsed, len(json.dumps(body, separators=(",", ":")))


async def _cold_start(kind: str, count: int) -> float:
    """Build a server of ``count`` fresh tools and answer its first ``tools/list``, in ms."""
    start = time.perf_counter()
    server = FACTORIES[kind](count)
    async with Client(server, mode="legacy") as client:
        await client.list_tools()
    return (time.perf_counter() - start) * 1000


async def listing(settings: Settings) -> list[tuple[str, float, float, str]]:
    """Build time, cold start, median listing time and bytes of ``list_tools`` tools."""
    built: dict[str, list[float]] = {"ours": [], "anchor": []}
    cold: dict[str, list[float]] = {"ours": [], "anchor": []}
    times: dict[str, list[float]] = {"ours": [], "anchor": []}
    servers, size = {}, {}
    for r in range(min(settings.rounds, 5)):
        for kind in ("ours", "anchor") if r % 2 == 0 else ("anchor", "ours"):
            start = time.perf_counter()
            servers[kind] = FACTORIES[kind](settings.list_tools)
            built[kind].append((time.perf_counter() - start) * 1000)
            cold[kind].append(await _cold_start(kind, settings.list_tools))
    for r in range(settings.rounds):
        for kind in ("ours", "anchor") if r % 2 == 0 else ("anchor", "ours"):
            elapsed, size[kind] = await _listing(servers[kind])
            times[kind].append(elapsed * 1000)
    med = statistics.median
    return [
        (
            "build server (ours builds schemas lazily)",
            med(built["ours"]),
            med(built["anchor"]),
            "ms",
        ),
        ("build + first tools/list (every schema)", med(cold["ours"]), med(cold["anchor"]), "ms"),
        ("tools/list time", med(times["ours"]), med(times["anchor"]), "ms"),
        ("tools/list size", size["ours"] / 1024, size["anchor"] / 1024, "KiB"),
    ]


# -- report --------------------------------------------------------------------------------


def _span(values: Sequence[float], fmt: str) -> str:
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})"


def calls_table(title: str, rows: list[Row], cpu_label: str) -> Table:
    table = Table(title=title)
    for column in ("", "ours calls/s", "MCPServer calls/s", "ratio (range)"):
        table.add_column(column, justify="right" if column else "left")
    table.add_column(f"{cpu_label} µs/call ours / theirs", justify="right")
    for row in rows:
        # A mean, not a median: psutil counts CPU in clock ticks, too coarse for one round.
        cpu_ours = statistics.fmean(s.cpu_us for s in row.ours)
        cpu_theirs = statistics.fmean(s.cpu_us for s in row.theirs)
        table.add_row(
            row.label,
            _span([s.rate for s in row.ours], ".0f"),
            _span([s.rate for s in row.theirs], ".0f"),
            _span(row.ratios(), ".2f"),
            f"{cpu_ours:.0f} / {cpu_theirs:.0f} ({cpu_theirs / cpu_ours:.2f})",
        )
    return table


def listing_table(title: str, rows: list[tuple[str, float, float, str]]) -> Table:
    table = Table(title=title)
    for column in ("", "ours", "MCPServer", "ratio (theirs / ours)"):
        table.add_column(column, justify="right" if column else "left")
    for label, mine, theirs, unit in rows:
        table.add_row(label, f"{mine:.1f} {unit}", f"{theirs:.1f} {unit}", f"{theirs / mine:.2f}")
    return table


async def run(settings: Settings, console: Console, load: int = 0) -> None:
    """Measure and print every table (the in-process one again under ``load`` busy processes)."""
    started = time.perf_counter()
    head = f"{settings.rounds} alternating rounds; cells are medians (min-max)"
    console.print(
        calls_table(
            f"sequential echo calls over a transport ({settings.calls} per round on stdio, "
            f"{settings.http_calls} on HTTP; {head})",
            await transports(settings),
            "server CPU",
        )
    )
    console.print(
        calls_table(
            f"in-process calls, no transport ({settings.calls} per round; {head}; "
            f"sync tools run in a worker thread in both; as found: {machine()})",
            await in_process(settings),
            "process CPU",
        )
    )
    if load:
        with busy(load) as label:
            rows = await in_process(settings)
            console.print(
                calls_table(
                    f"the same in-process calls under load: {label} ({machine()})",
                    rows,
                    "process CPU",
                )
            )
    console.print(
        listing_table(
            f"tools/list of {settings.list_tools} tools (in-process, handshake client)",
            await listing(settings),
        )
    )
    console.print(f"total {time.perf_counter() - started:.0f} s")


def _serve(kind: str, transport: str, port: int) -> None:
    """Child process entry: serve one server on one transport."""
    if transport == "stdio":
        if kind == "ours":
            run_stdio(ours())
        else:
            anchor().run("stdio")
        return
    import uvicorn

    if kind in ("ours", "ours_sse"):
        # Ours as served by default: JSON unless a request needs a stream, uvicorn as
        # ``serve_http`` configures it (its read deadline and gathered writes).
        app = http_app(ours(), json_response=None if kind == "ours" else False)
        uvicorn.Server(uvicorn_config(app, port=port)).run()
        return
    json_response = kind == "anchor_json"
    app = anchor().streamable_http_app(stateless_http=True, json_response=json_response)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _cpu_server(tool: str) -> Any:
    return ours(fn=echo if tool == "sync" else aecho)


def _cpu_anchor(tool: str) -> Any:
    return anchor(fn=echo if tool == "sync" else aecho)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.WARNING)
    if len(args) == 4 and args[0] == "--serve":
        _serve(args[1], args[2], int(args[3]))
        return 0
    if len(args) == 4 and args[0] == "--serve-cpu":
        serve(args[1], args[2], int(args[3]), _cpu_server, _cpu_anchor)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few calls only (smoke run)")
    parser.add_argument(
        "--load",
        type=int,
        default=None,
        help="busy processes for the in-process calls measured again (default: 1; 0 with --quick)",
    )
    parser.add_argument(
        "--server-cpu",
        action="store_true",
        help="only the server's own CPU per call over stateless HTTP, idle and under --load",
    )
    parsed = parser.parse_args(args)
    quick = parsed.quick
    load = parsed.load if parsed.load is not None else (0 if quick else 1)
    console = Console(width=160)
    if quick:
        console.print("--quick: figures are indicative only")
    report(console, [sys.executable, __file__, "--serve-cpu"], _env(), quick, load)
    if parsed.server_cpu:
        return 0
    anyio.run(run, QUICK if quick else FULL, console, load)
    return 0


if __name__ == "__main__":
    sys.exit(main())
