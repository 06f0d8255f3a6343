"""The server's instructions per ``tools/call`` over stateless HTTP, counted by callgrind.

Wall-clock CPU on a shared two-core machine cannot resolve a change of a few per cent; an
instruction count can. Each server (ours and ``MCPServer``, serving the same ``echo`` tool as
``bench_mcp_server.py --server-cpu``) runs alone under ``valgrind --tool=callgrind`` with
instrumentation off while it starts; then instrumentation goes on, ``--warmup`` plain ``httpx``
posts of the bench's request warm it, the counters are zeroed, ``--calls`` more posts are sent
and the counters dumped. The posts share one kept-alive connection, as in the wall-clock bench
(``--fresh-connections``: one connection each). The figure is that dump's instructions divided
by the calls: the whole server process (uvicorn, h11, the event loop, the socket and every
thread), nothing the client does. The dumps are kept for ``callgrind_annotate --inclusive=yes``.

Needs valgrind (``callgrind_control`` talks to the process through ``vgdb``). Under valgrind a
server starts in about half a minute here and a call costs some milliseconds, so one pair of
servers takes a minute or two::

    python bench/callgrind_server.py --tool async --protocol 2026-07-28
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server_cpu import ANCHOR_HTTP, MODERN, PROTOCOLS, _free_port, _request, parsers

BENCH = Path(__file__).resolve().parent / "bench_mcp_server.py"


def _control(pid: int, *args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(pid)], check=True, capture_output=True)


def _posts(client: httpx.Client | None, url: str, protocol: str, calls: int) -> None:
    for i in range(calls):
        body, headers = _request(protocol, i)
        post = client.post if client is not None else httpx.post
        reply = post(url, json=body, headers=headers, timeout=120)
        text = reply.json()["result"]["content"][0]["text"]
        if reply.status_code != 200 or text != body["params"]["arguments"]["text"]:
            raise RuntimeError(f"unexpected reply {reply.status_code}: {reply.text[:300]}")


def _wait_for(port: int, proc: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"the server on port {port} did not start") from None
            time.sleep(0.5)


def count(
    kind: str, tool: str, protocol: str, warmup: int, calls: int, out: Path, fresh: bool = False
) -> float:
    """Instructions per call of server ``kind`` (``ours``/``anchor``) serving a ``tool`` tool."""
    port = _free_port()
    prefix = out / f"{kind}-{tool}-{protocol}"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={prefix}.%p",
        sys.executable,
        str(BENCH),
        "--serve-cpu",
        kind,
        tool,
        str(port),
    ]
    proc = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc, 600)
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx.Client(timeout=120) as pooled:
            client = None if fresh else pooled
            _control(proc.pid, "--instr=on")
            _posts(client, url, protocol, warmup)
            _control(proc.pid, "--zero")
            _posts(client, url, protocol, calls)
            _control(proc.pid, "--dump")
        dumps = sorted(out.glob(f"{prefix.name}.{proc.pid}*"), key=os.path.getmtime)
        text = dumps[-1].read_text()
        match = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
        if match is None:
            raise RuntimeError(f"no totals in {dumps[-1]}")
        return int(match.group(1)) / calls
    finally:
        proc.terminate()
        proc.wait(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", choices=("sync", "async", "both"), default="both")
    parser.add_argument("--protocol", choices=PROTOCOLS, default=MODERN)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--only", choices=("ours", "anchor"), help="count one server only")
    parser.add_argument(
        "--fresh-connections",
        action="store_true",
        help="a new TCP connection per post (the connection's setup counted too)",
    )
    parser.add_argument(
        "--anchor-http",
        choices=("auto", "h11", "httptools"),
        default="auto",
        help="MCPServer's HTTP parser (default: uvicorn's choice, httptools where installed)",
    )
    parser.add_argument("--out", type=Path, help="where the dumps go (default: a new temp dir)")
    args = parser.parse_args()
    os.environ[ANCHOR_HTTP] = args.anchor_http  # the servers' processes inherit it
    out = args.out or Path(tempfile.mkdtemp(prefix="callgrind-server-"))
    out.mkdir(parents=True, exist_ok=True)
    kinds = (args.only,) if args.only else ("ours", "anchor")
    for tool in ("sync", "async") if args.tool == "both" else (args.tool,):
        figures = {
            k: count(k, tool, args.protocol, args.warmup, args.calls, out, args.fresh_connections)
            for k in kinds
        }
        line = ", ".join(f"{k} {v / 1000:,.0f} k" for k, v in figures.items())
        if len(figures) == 2:
            line += f", ours / MCPServer {figures['ours'] / figures['anchor']:.3f}"
        print(
            f"{tool} tool, {args.protocol} ({parsers()}): instructions per call: {line}",
            flush=True,
        )
    print(f"dumps in {out} (callgrind_annotate --inclusive=yes <file>)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
