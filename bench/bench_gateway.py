"""The gateway hop: our server re-serving a remote MCP server, against FastMCP's proxy.

Run: ``.venv/bin/python bench/bench_gateway.py [--quick] [--load N]`` (``--quick`` is a
smoke run of about a minute whose figures mean little; a full run takes a few minutes).
``--rounds N --calls M`` trade calls per round for rounds: on a shared machine many short
rounds give a steadier median of the per-round ratios.

Three paths to the same remote server (an SDK ``MCPServer`` with one ``echo`` tool, run by
this script, at WARNING logging), each measured with the same ``mcp.Client``:

* ``ours``: ``python -m adapters.mcp_server --config mcp.json`` (what ``toolkit serve
  --config`` runs), the remote named in its ``mcpServers``;
* ``proxy``: FastMCP's proxy with its defaults (``create_proxy({"mcpServers": ...})``), run
  by ``_fastmcp_proxy.py`` from its own venv: ``.peers/fastmcp-venv`` or the Python named by
  ``BENCH_FASTMCP_PYTHON`` (``python3 -m venv .peers/fastmcp-venv &&
  .peers/fastmcp-venv/bin/pip install fastmcp``). Without it the script says so and stops;
* ``direct``: the client talks to the remote itself, the reference for the hop's cost.

Every row is one client transport (stdio, HTTP), one remote transport (stdio, HTTP) and one
protocol generation, end to end: ``2026-07-28`` (``mode="auto"``; our gateway's config says
``"protocol": "auto"``, FastMCP's proxy mirrors the front's era) or the ``2025-11-25``
handshake (``mode="legacy"``). HTTP servers run on 127.0.0.1 with their defaults (ours
stateless, FastMCP's stateful); each path has its own remote process, so each CPU figure
belongs to one path. The three paths are measured in rotating rounds (each first in turn), so
a burst of load from elsewhere hits all alike.

Per call: the CPU of the gateway or proxy process and of the remote process behind it (from
``/proc/<pid>/stat``, a mean over all rounds: the kernel counts in clock ticks), and the
client's wall time (the median of the rounds). Ratios are ours / proxy: below 1.0 we are
cheaper. ``hop`` is a path's wall time over the direct call's; ``added`` is the wall time the
gateway adds to a direct call over the time the proxy adds (``(ours - direct) / (proxy -
direct)``), the hop's own share, which the client's and the remote's turns do not dilute. With ``--load N`` (default 1,
0 with ``--quick``) every row is measured again while N processes each keep a CPU busy.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import psutil
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._load import busy, machine  # noqa: E402

ANCHOR_PYTHON = Path(
    os.environ.get("BENCH_FASTMCP_PYTHON", ROOT / ".peers/fastmcp-venv/bin/python")
)
ANCHOR_SCRIPT = Path(__file__).resolve().parent / "_fastmcp_proxy.py"
MODES = {"2026-07-28": "auto", "2025-11-25": "legacy"}
SIDES = ("ours", "proxy", "direct")
#: ``--baseline DIR``: another checkout of this project, served as the side ``before``.
BASELINE: list[Path] = []
TRANSPORTS = ("stdio", "http")
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Settings:
    """How much to measure."""

    rounds: int
    calls: int


FULL = Settings(rounds=6, calls=40)
QUICK = Settings(rounds=2, calls=12)
#: ``--quick`` measures each pair of transports once, the handshakes taking turns.
QUICK_ROWS = (
    "stdio client, stdio remote, 2026-07-28",
    "stdio client, http remote, 2025-11-25",
    "http client, stdio remote, 2025-11-25",
    "http client, http remote, 2026-07-28",
)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU of process ``pid`` so far, from ``/proc/<pid>/stat``."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime (fields 14 and 15)


# -- processes -----------------------------------------------------------------------------


def _env(python_path: str = str(ROOT)) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": python_path}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def _listening(
    cmd: list[str], env: dict[str, str], port: int | None = None
) -> AsyncIterator[tuple[str, int]]:
    """Start an HTTP server on ``port`` (default: ``cmd``'s last argument); yield its URL, pid."""
    port = int(cmd[-1]) if port is None else port
    # The gateway writes a line per call on stderr: to a terminal that would measure the
    # terminal. Every server's stderr goes to /dev/null.
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # a busy machine can take a while to start Python
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{cmd} did not listen on port {port}") from None
                await anyio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _remote_cmd(transport: str, tag: str) -> list[str]:
    """The remote server's command; ``tag`` tells its process apart from the others'."""
    port = str(_free_port()) if transport == "http" else "0"
    return [sys.executable, str(Path(__file__).resolve()), "--remote", transport, port, tag]


def _front_cmd(
    side: str, remote: dict[str, Any], mode: str, transport: str, tmp: Path, tag: str
) -> list[str]:
    port = [str(_free_port())] if transport == "http" else []
    if side == "proxy":
        server = json.dumps(remote)
        return [str(ANCHOR_PYTHON), str(ANCHOR_SCRIPT), server, transport, tag, *port]
    config = tmp / f"mcp-{tag}.json"
    config.write_text(json.dumps({"mcpServers": {"echo": {**remote, "protocol": mode}}}))
    args = [sys.executable, "-m", "adapters.mcp_server", "--config", str(config)]
    if side == "before":  # -m imports from the working directory first
        args = ["/bin/sh", "-c", f'cd "{BASELINE[0]}" && exec "$0" "$@"', *args]
    return [*args, *(("--transport", "http", "--port", *port) if port else ())]


@dataclass
class Path_:
    """One path to the remote: its client, tool name and the processes whose CPU it costs."""

    side: str
    client: Client
    tool: str
    front: int | None  # the gateway or proxy process (None: a direct call)
    remote: int
    samples: list[tuple[float, float, float]] = field(default_factory=list)  # wall, front, remote

    def cpu(self) -> tuple[float, float]:
        return (cpu_seconds(self.front) if self.front else 0.0), cpu_seconds(self.remote)


async def _find(tag: str, remote: bool) -> int:
    """The pid of this path's remote (``--remote ... tag``) or front (``tag`` elsewhere)."""
    for _ in range(200):
        for child in psutil.Process().children(recursive=True):
            with suppress(psutil.Error):
                argv = child.cmdline()
                if remote == ("--remote" in argv) and any(tag in a for a in argv):
                    return int(child.pid)
        await anyio.sleep(0.05)
    raise RuntimeError(f"no {'remote' if remote else 'front'} process tagged {tag}")


@asynccontextmanager
async def open_path(
    side: str, client_t: str, remote_t: str, mode: str, tmp: Path
) -> AsyncIterator[Path_]:
    """Start one path (remote, then gateway or proxy) and connect the client to it."""
    tag = f"{side}-{uuid.uuid4().hex[:8]}"
    async with AsyncExitStack() as stack:
        cmd = _remote_cmd(remote_t, tag)
        if remote_t == "http":
            url, _ = await stack.enter_async_context(_listening(cmd, _env(), port=int(cmd[4])))
            remote: dict[str, Any] = {"url": url}
        else:
            remote = {"command": cmd[0], "args": cmd[1:], "env": {"PYTHONPATH": str(ROOT)}}
        env = _env({"proxy": "", "before": str(BASELINE[:1] and BASELINE[0])}.get(side, str(ROOT)))
        target: Any
        if side == "direct":  # the client talks to the remote: over HTTP to an HTTP one
            target = remote.get("url") or StdioServerParameters(
                command=cmd[0], args=cmd[1:], env=env
            )
        elif client_t == "http":
            front_cmd = _front_cmd(side, remote, mode, client_t, tmp, tag)
            target, _ = await stack.enter_async_context(_listening(front_cmd, env))
        else:
            front_cmd = _front_cmd(side, remote, mode, client_t, tmp, tag)
            quiet = ["-c", 'exec "$0" "$@" 2>/dev/null', *front_cmd]  # exec: the same process
            target = StdioServerParameters(command="/bin/sh", args=quiet, env=env)
        client = await stack.enter_async_context(Client(target, mode=mode))
        front_pid = None if side == "direct" else await _find(tag, remote=False)
        remote_pid = await _find(tag, remote=True)
        tools = await client.list_tools()
        tool = next(t.name for t in tools.tools if t.name.endswith("echo"))
        yield Path_(side, client, tool, front_pid, remote_pid)


async def _hold(
    path: AbstractAsyncContextManager[Path_],
    into: list[Path_],
    ready: anyio.Event,
    done: anyio.Event,
) -> None:
    async with path as opened:
        into.append(opened)
        ready.set()
        await done.wait()


async def _round(path: Path_, calls: int) -> None:
    front0, remote0 = path.cpu()
    start = time.perf_counter()
    for i in range(calls):
        result = await path.client.call_tool(path.tool, {"text": f"hi {i}"})
        if result.is_error:
            raise RuntimeError(f"{path.side}: {result.content}")
    wall = (time.perf_counter() - start) / calls
    front1, remote1 = path.cpu()
    path.samples.append((wall, (front1 - front0) / calls, (remote1 - remote0) / calls))


# -- rows ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One client transport, remote transport and protocol: every side's per-call figures."""

    label: str
    wall_ms: dict[str, float]  # median of the rounds
    front_us: dict[str, float]  # mean over the rounds
    remote_us: dict[str, float]
    wall_ratios: list[float]  # ours / proxy, per round


async def measure(client_t: str, remote_t: str, version: str, settings: Settings, tmp: Path) -> Row:
    """Rotating rounds of sequential calls over every path of one row."""
    mode = MODES[version]
    sides = SIDES + (("before",) if BASELINE else ())
    async with anyio.create_task_group() as tg:
        # The three paths start at once (each held open by a task of its own).
        done, readies, opened = anyio.Event(), [anyio.Event() for _ in sides], []
        for side, ready in zip(sides, readies, strict=True):
            tg.start_soon(
                _hold, open_path(side, client_t, remote_t, mode, tmp), opened, ready, done
            )
        for ready in readies:
            await ready.wait()
        paths = sorted(opened, key=lambda p: sides.index(p.side))
        for path in paths:  # warm-up: imports, caches, first-call paths
            await _round(path, max(5, settings.calls // 4))
            path.samples.clear()
        for r in range(settings.rounds):
            for k in range(len(paths)):
                await _round(paths[(r + k) % len(paths)], settings.calls)
        done.set()
    by = {p.side: p for p in paths}
    wall = {p.side: statistics.median(s[0] for s in p.samples) * 1e3 for p in paths}
    front = {p.side: statistics.fmean(s[1] for s in p.samples) * 1e6 for p in paths}
    remote = {p.side: statistics.fmean(s[2] for s in p.samples) * 1e6 for p in paths}
    ratios = [o[0] / t[0] for o, t in zip(by["ours"].samples, by["proxy"].samples, strict=True)]
    label = f"{client_t} client, {remote_t} remote, {version}"
    return Row(label, wall, front, remote, ratios)


def _ratio(row: dict[str, float]) -> str:
    return f"{row['ours'] / row['proxy']:.2f}"


def report(title: str, rows: list[Row]) -> None:
    """Print one table: a line per row."""
    print(title)
    head = (
        f"{'':<40} {'front CPU µs ours/proxy':>24} {'ratio':>6} "
        f"{'remote CPU µs ours/proxy/direct':>32} {'wall ms ours/proxy/direct':>26} "
        f"{'ratio (range)':>18} {'hop ours/proxy':>15} {'added':>6}"
    )
    print(head)
    for row in rows:
        w, f, r = row.wall_ms, row.front_us, row.remote_us
        if "before" in f:
            print(
                f"{'  (before: ' + str(BASELINE[0]) + ')':<40} {f['before']:>11.0f}/{f['proxy']:<12.0f} "
                f"{f['before'] / f['proxy']:>6.2f} {r['before']:>32.0f} {w['before']:>26.2f} "
                f"{w['before'] / w['proxy']:>18.2f}"
            )
        hop = f"{w['ours'] / w['direct']:.1f}/{w['proxy'] / w['direct']:.1f}"
        added = (w["ours"] - w["direct"]) / (w["proxy"] - w["direct"])
        remote = f"{r['ours']:.0f}/{r['proxy']:.0f}/{r['direct']:.0f}"
        walls = f"{w['ours']:.2f}/{w['proxy']:.2f}/{w['direct']:.2f}"
        spread = f"{_ratio(w)} ({min(row.wall_ratios):.2f}-{max(row.wall_ratios):.2f})"
        print(
            f"{row.label:<40} {f['ours']:>11.0f}/{f['proxy']:<12.0f} {_ratio(f):>6} "
            f"{remote:>32} {walls:>26} {spread:>18} {hop:>15} {added:>6.2f}"
        )


async def run(settings: Settings, load: int, only: Callable[[str], bool]) -> None:
    """Measure every row idle, then under ``load`` busy processes, and print the tables."""
    started = time.perf_counter()
    combos = [
        (c, r, v)
        for c in TRANSPORTS
        for r in TRANSPORTS
        for v in MODES
        if only(f"{c} client, {r} remote, {v}")
    ]
    loads = [0, load] if load else [0]
    with tempfile.TemporaryDirectory() as tmp:
        for n in loads:
            rows = []
            if n:
                with busy(n) as label:
                    for combo in combos:
                        rows.append(await measure(*combo, settings, Path(tmp)))
            else:
                label = "idle"
                for combo in combos:
                    rows.append(await measure(*combo, settings, Path(tmp)))
            report(
                f"\n{settings.rounds} rotating rounds of {settings.calls} echo calls per path; "
                f"{label}, {machine()} at the end; direct = client to remote",
                rows,
            )
    print(f"total {time.perf_counter() - started:.0f} s")


def serve_remote(transport: str, port: int) -> None:
    """The remote server: the SDK's ``MCPServer`` with one ``echo`` tool, WARNING logging."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("remote", log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn

    app = server.streamable_http_app(stateless_http=True, json_response=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--remote"]:  # --remote TRANSPORT PORT TAG
        serve_remote(args[1], int(args[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few calls only (smoke run)")
    parser.add_argument("--load", type=int, default=None, help="busy processes (default 1)")
    parser.add_argument("--only", default="", help="only the rows whose label has this text")
    parser.add_argument(
        "--rounds", type=int, help=f"rotating rounds per row (default {FULL.rounds})"
    )
    parser.add_argument(
        "--calls", type=int, help=f"calls per path and round (default {FULL.calls})"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of this project: its gateway is measured too, as 'before'",
    )
    parsed = parser.parse_args(args)
    if parsed.baseline:
        BASELINE.append(parsed.baseline.resolve())
    if not ANCHOR_PYTHON.exists():
        print(
            f"FastMCP's proxy is not installed at {ANCHOR_PYTHON}: python3 -m venv "
            ".peers/fastmcp-venv && .peers/fastmcp-venv/bin/pip install fastmcp "
            "(or set BENCH_FASTMCP_PYTHON)"
        )
        return 1
    load = parsed.load if parsed.load is not None else (0 if parsed.quick else 1)
    if parsed.quick:
        print("--quick: figures are indicative only")
    rows = QUICK_ROWS if parsed.quick else None

    def only(label: str) -> bool:
        return parsed.only in label and (rows is None or label in rows)

    settings = QUICK if parsed.quick else FULL
    settings = Settings(parsed.rounds or settings.rounds, parsed.calls or settings.calls)
    anyio.run(run, settings, load, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
