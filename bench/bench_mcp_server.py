"""Our MCP server vs the SDK's ``MCPServer``: the same trivial tool, the same client.

Run: ``.venv/bin/python bench/bench_mcp_server.py`` (one run; prints ratios, ours / theirs,
where > 1.0 means we are faster or smaller).

* sequential ``tools/call`` per second over stdio and over streamable HTTP (stateless), with
  ``mcp.Client`` in both protocol generations;
* ``tools/list`` of a 1000-tool registry: time and bytes.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.mcp_server import build_server, http_app, run_stdio  # noqa: E402
from toolkit import ToolRegistry, mcp_tool  # noqa: E402

CALLS = 300
LIST_TOOLS = 1000


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


def ours(count: int = 1, fn: Callable[..., Any] = echo) -> Any:
    registry = ToolRegistry()
    tool = mcp_tool(fn)
    for i in range(count):
        registry.register(tool, name="echo" if count == 1 else f"tool_{i}")
    return build_server(registry, name="bench")


def anchor(count: int = 1, fn: Callable[..., Any] = echo) -> MCPServer:
    server = MCPServer("bench")
    for i in range(count):
        server.add_tool(fn, name="echo" if count == 1 else f"tool_{i}")
    return server


def _serve(kind: str, transport: str, port: int) -> None:
    """Child process entry: serve one server on one transport."""
    if transport == "stdio":
        if kind == "ours":
            run_stdio(ours())
        else:
            anchor().run("stdio")
        return
    import uvicorn

    app = http_app(ours()) if kind == "ours" else anchor().streamable_http_app(stateless_http=True)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _calls_per_second(client: Client) -> float:
    await client.call_tool("echo", {"text": "warm"})
    start = time.perf_counter()
    for i in range(CALLS):
        await client.call_tool("echo", {"text": f"hi {i}"})
    return CALLS / (time.perf_counter() - start)


def _child(kind: str, transport: str, port: int = 0) -> list[str]:
    return [sys.executable, __file__, "--serve", kind, transport, str(port)]


async def _stdio(kind: str, mode: str) -> float:
    cmd = _child(kind, "stdio")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)
    async with Client(params, mode=mode) as client:
        return await _calls_per_second(client)


async def _http(kind: str, mode: str) -> float:
    port = _free_port()
    proc = subprocess.Popen(_child(kind, "http", port), env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await anyio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
            return await _calls_per_second(client)
    finally:
        proc.terminate()
        proc.wait(10)


async def _listing(server: Any) -> tuple[float, int]:
    async with Client(server, mode="legacy") as client:
        await client.list_tools()
        start = time.perf_counter()
        result = await client.list_tools(cache_mode="refresh")
        elapsed = time.perf_counter() - start
    body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    return elapsed, len(json.dumps(body, separators=(",", ":")))


def _row(label: str, mine: float, theirs: float, unit: str, higher_is_better: bool = True) -> None:
    ratio = mine / theirs if higher_is_better else theirs / mine
    print(
        f"{label:<34} ours {mine:>10.1f} {unit:<7} MCPServer {theirs:>10.1f} {unit:<7} ratio {ratio:.2f}"
    )


async def _main() -> None:
    print(f"sequential echo calls ({CALLS} per run), mcp.Client")
    for transport, run in (("stdio", _stdio), ("http", _http)):
        for mode in ("auto", "legacy"):
            mine = await run("ours", mode)
            theirs = await run("anchor", mode)
            _row(f"  {transport} {mode}", mine, theirs, "calls/s")
    print("in-process calls (no transport): sync tools run in a worker thread in ours")
    for fn in (echo, aecho):
        for mode in ("auto", "legacy"):
            async with Client(ours(fn=fn), mode=mode) as client:
                mine = await _calls_per_second(client)
            async with Client(anchor(fn=fn), mode=mode) as client:
                theirs = await _calls_per_second(client)
            _row(f"  {fn.__name__} {mode}", mine, theirs, "calls/s")
    print(f"tools/list of {LIST_TOOLS} tools (in-process, handshake client)")
    build_start = time.perf_counter()
    mine_server = ours(LIST_TOOLS)
    mine_build = time.perf_counter() - build_start
    build_start = time.perf_counter()
    anchor_server = anchor(LIST_TOOLS)
    anchor_build = time.perf_counter() - build_start
    mine_time, mine_bytes = await _listing(mine_server)
    anchor_time, anchor_bytes = await _listing(anchor_server)
    _row("  build server", mine_build * 1000, anchor_build * 1000, "ms", higher_is_better=False)
    _row("  tools/list time", mine_time * 1000, anchor_time * 1000, "ms", higher_is_better=False)
    _row(
        "  tools/list bytes", mine_bytes / 1024, anchor_bytes / 1024, "KiB", higher_is_better=False
    )


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--serve":
        _serve(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        anyio.run(_main)
