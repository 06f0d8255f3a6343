"""A stdio server's start-up: from its launch to its first answer, ours against ``MCPServer``.

Run: ``.venv/bin/python bench/bench_startup.py [--quick] [--load N]`` (``--quick``: 3 launches
per row instead of 9, and no loaded table; ``--load N``: N busy processes for the second table,
default 1).

An MCP client (Claude Desktop, an IDE, our own gateway) starts a stdio server and waits for its
answer to ``initialize`` before anything else; that wait is this bench. Each row launches a fresh
interpreter serving one ``echo`` tool over stdio, writes ``initialize`` (2025-11-25) and reads
the reply: the median wall time to that reply, and the process's CPU until it exits (stdin
closed after the reply). Rows:

* ``ours``: ``python -m adapters.mcp_server bench.bench_startup:registry``, what
  ``toolkit serve`` runs;
* ``ours, jsonschema imported first``: the same after ``import jsonschema``, as every start
  paid before the library imported it on first need (where ``rfc3987-syntax`` is installed,
  as JupyterLab installs it, that import compiles grammars for one to three seconds);
* ``MCPServer``: the SDK's server with the same tool (``python bench/bench_startup.py
  --anchor``).

The ratio is the row's wall time over ``MCPServer``'s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._load import busy, machine  # noqa: E402
from toolkit import ToolRegistry, mcp_tool  # noqa: E402

_SERVE = ["-m", "adapters.mcp_server", "bench.bench_startup:registry"]
_RUN_FIRST = "import jsonschema, runpy, sys; sys.argv = ['toolkit', *sys.argv[1:]]; "
ROWS: dict[str, list[str]] = {
    "ours": _SERVE,
    "ours, jsonschema imported first": [
        "-c",
        _RUN_FIRST + "runpy.run_module('adapters.mcp_server', run_name='__main__')",
        *_SERVE[2:],
    ],
    "MCPServer": [str(Path(__file__).resolve()), "--anchor"],
}

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


@mcp_tool
def echo(text: str) -> str:
    """Return the text unchanged.

    Args:
        text: Any text.
    """
    return text


registry = ToolRegistry()
registry.register(echo)


def serve_anchor() -> None:
    """``MCPServer`` with the same tool, over stdio, at WARNING logging."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("anchor", log_level="WARNING")

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    server.run("stdio")


def launch(args: list[str]) -> tuple[float, float]:
    """Wall seconds to the ``initialize`` reply, and the process's CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(_INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    reply = proc.stdout.readline()
    wall = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if b'"result"' not in reply:
        raise RuntimeError(f"{args}: no initialize result, got {reply[:300]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _table(runs: int, label: str) -> None:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in ROWS}
    for _ in range(runs):  # rows take turns, so a burst of load hits all alike
        for name, args in ROWS.items():
            samples[name].append(launch(args))
    anchor = statistics.median(w for w, _ in samples["MCPServer"])
    table = Table(
        title=f"stdio server start-up to its initialize reply, medians of {runs} launches "
        f"({label}; {machine()})"
    )
    for column in ("server", "wall ms", "CPU ms", "wall / MCPServer"):
        table.add_column(column, justify="left" if column == "server" else "right")
    for name, rows in samples.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        table.add_row(name, f"{wall * 1e3:.0f}", f"{cpu * 1e3:.0f}", f"{wall / anchor:.2f}")
    Console(width=120).print(table)


def main() -> int:
    if sys.argv[1:] == ["--anchor"]:
        serve_anchor()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 launches per row instead of 9")
    parser.add_argument("--load", type=int, default=None, help="busy processes (default 1)")
    parsed = parser.parse_args()
    runs = 3 if parsed.quick else 9
    load = parsed.load if parsed.load is not None else (0 if parsed.quick else 1)
    for loaded in (0, load) if load else (0,):
        with busy(loaded) as label:
            _table(runs, label if loaded else "as found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
