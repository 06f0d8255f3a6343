"""The server's own CPU per ``tools/call`` over stateless HTTP, ours against ``MCPServer``.

Each server runs alone in a subprocess under uvicorn on 127.0.0.1; the client is a plain
``httpx`` loop in this process posting one JSON-RPC ``tools/call`` per request, so nothing the
client does is counted. The server's CPU is read from the kernel before and after each round:
the nanosecond run time of every thread of the process (``/proc/<pid>/task/*/schedstat``;
sync tools run in worker threads), or ``psutil``'s clock ticks where that file is missing.

Both protocol generations are posted as a client of that generation would: 2025-11-25 with its
``MCP-Protocol-Version`` header (stateless: no handshake), 2026-07-28 with the per-request
``_meta`` envelope and its routing headers. Both servers answer with one JSON body: ours with
its defaults (JSON unless a request asks for progress or logs), ``MCPServer`` with
``json_response=True``; everything else is each one's default: our Host/Origin check, body
limit, parse guard, read deadline and call record against ``MCPServer``'s own DNS-rebinding
protection and body limit.

Both run on uvicorn's default parser in this environment: httptools, which the ``mcp`` extra
installs (``pip install mcp`` alone leaves ``MCPServer`` on h11). ``BENCH_ANCHOR_HTTP=h11`` runs
``MCPServer`` on h11, as a plain install of the SDK serves it; every table names the parsers.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import socket
import statistics
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import psutil
from rich.console import Console
from rich.table import Table

from bench._load import busy, machine

__all__ = ["ANCHOR_HTTP", "CpuRow", "measure", "parsers", "report", "serve"]

#: The environment variable naming ``MCPServer``'s HTTP parser (uvicorn's ``http=``).
ANCHOR_HTTP = "BENCH_ANCHOR_HTTP"

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
PROTOCOLS = (LEGACY, MODERN)


@dataclass(frozen=True)
class CpuRow:
    """Server CPU per call (µs) over the rounds, ours and theirs, for one tool and protocol."""

    label: str
    ours: list[float]
    theirs: list[float]

    def ratios(self) -> list[float]:
        """Ours / theirs per round (below 1.0 we are cheaper)."""
        return [o / t for o, t in zip(self.ours, self.theirs, strict=True)]


def server_cpu(pid: int) -> float:
    """Seconds of CPU the process ``pid`` has used, all its threads together."""
    total = 0
    files = glob.glob(f"/proc/{pid}/task/*/schedstat")
    if not files:
        times = psutil.Process(pid).cpu_times()
        return float(times.user + times.system)
    for path in files:
        try:
            with open(path, "rb") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended between the listing and the read
    return total / 1e9


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _server(command: list[str], env: dict[str, str]) -> Iterator[tuple[str, int]]:
    port = _free_port()
    proc = subprocess.Popen([*command, str(port)], env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


def _request(protocol: str, i: int) -> tuple[dict[str, Any], dict[str, str]]:
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": f"hi {i}"}}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": protocol,
    }
    if protocol == MODERN:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        }
        headers["mcp-method"] = "tools/call"
        headers["mcp-name"] = "echo"
    body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
    return body, headers


def _round(client: httpx.Client, url: str, pid: int, protocol: str, calls: int) -> float:
    requests = [_request(protocol, i) for i in range(calls)]
    before = server_cpu(pid)
    for body, headers in requests:
        reply = client.post(url, json=body, headers=headers)
        data = reply.json()
        if (
            reply.status_code != 200
            or data["result"]["content"][0]["text"] != body["params"]["arguments"]["text"]
        ):
            raise RuntimeError(f"unexpected reply {reply.status_code}: {reply.text[:300]}")
    return (server_cpu(pid) - before) / calls * 1e6


def measure(
    command: list[str], env: dict[str, str], tool: str, rounds: int, calls: int
) -> list[CpuRow]:
    """Alternating rounds against both servers serving ``tool`` (``sync`` or ``async``)."""
    with (
        _server([*command, "ours", tool], env) as mine,
        _server([*command, "anchor", tool], env) as theirs,
        httpx.Client(timeout=30) as client,
    ):
        sides = (mine, theirs)
        rows = []
        for protocol in PROTOCOLS:
            for url, pid in sides:  # warm-up: imports, caches, first-call paths
                _round(client, url, pid, protocol, max(10, calls // 5))
            samples: list[list[float]] = [[], []]
            for r in range(rounds):
                for side in (0, 1) if r % 2 == 0 else (1, 0):
                    url, pid = sides[side]
                    samples[side].append(_round(client, url, pid, protocol, calls))
            rows.append(CpuRow(f"{tool} tool, {protocol}", samples[0], samples[1]))
    return rows


def summary(row: CpuRow) -> tuple[str, str, str, str]:
    """Label, our median µs, theirs, and the ratio (median of the paired rounds, min-max)."""
    ratios = row.ratios()
    return (
        row.label,
        f"{statistics.median(row.ours):.0f}",
        f"{statistics.median(row.theirs):.0f}",
        f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
    )


def serve(kind: str, tool: str, port: int, ours: Any, anchor: Any) -> None:
    """Child process entry: serve one server with the echo tool over stateless HTTP."""
    import uvicorn

    from adapters.mcp_server import http_app
    from adapters.mcp_server._http import uvicorn_config

    if kind == "ours":
        app = http_app(ours(tool))
        uvicorn.Server(uvicorn_config(app, port=port)).run()
    else:
        app = anchor(tool).streamable_http_app(stateless_http=True, json_response=True)
        http = os.environ.get(ANCHOR_HTTP, "auto")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", http=http)


def parsers() -> str:
    """Which HTTP parser each server runs on, for table titles."""
    ours = "httptools" if importlib.util.find_spec("httptools") else "h11"
    anchor = os.environ.get(ANCHOR_HTTP, "auto")
    return f"ours on {ours}, MCPServer on {ours if anchor == 'auto' else anchor}"


def report(
    console: Console, command: list[str], env: dict[str, str], quick: bool, load: int
) -> None:
    """Print the table idle, then again while ``load`` processes keep a CPU busy each."""
    rounds, calls = (2, 20) if quick else (6, 150)
    for loaded in (0, load) if load else (0,):
        with busy(loaded) as label:
            table = Table(
                title=f"server CPU per tools/call over stateless HTTP, JSON replies, plain httpx "
                f"client ({rounds} alternating rounds of {calls}; {label if loaded else 'idle'}; "
                f"as found: {machine()}; {parsers()})"
            )
            for column in ("", "ours µs", "MCPServer µs", "ours / MCPServer (range)"):
                table.add_column(column, justify="right" if column else "left")
            for tool in ("sync", "async"):
                for row in measure(command, env, tool, rounds, calls):
                    table.add_row(*summary(row))
            console.print(table)
