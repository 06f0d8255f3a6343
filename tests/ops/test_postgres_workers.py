"""Two ``toolkit serve --workers`` processes behind one port share approvals and one call log."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client

from tests.ops.test_workers import _port, _stop_tree, _wait_healthy
from toolkit.records.call_log import read_calls

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path(sys.executable).parent / "toolkit"

TOOLS = '''
import os
from toolkit import ToolRegistry, mcp_tool

@mcp_tool(destructive=True)
def purge_bin(code: str) -> str:
    """Purge a storage bin (asks first).

    Args:
        code: The bin code.
    """
    with open(os.environ["RUNS"], "a") as runs:  # the side effect, counted by the test
        runs.write(f"{code}\\n")
    return f"purged {code} in {os.getpid()}"

@mcp_tool(read_only=True)
def where() -> str:
    """Which worker answers."""
    return str(os.getpid())

registry = ToolRegistry()
registry.register(purge_bin)
registry.register(where)
'''


async def _approve(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"approve": True})


async def _calls(base: str, bins: list[str]) -> tuple[list[str], list[str]]:
    # No kept-alive connection: each round of each call may reach either worker.
    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30), limits=httpx2.Limits(max_keepalive_connections=0)
    )
    transport = streamable_http_client(f"{base}/mcp", http_client=http)
    purged: list[str] = []
    answered: list[str] = []
    async with http, Client(transport, elicitation_callback=_approve) as client:
        for code in bins:
            result = await client.call_tool("purge_bin", {"code": code})
            assert not result.is_error, result
            purged.append(_text(result))
        # Until both workers answered (the kernel picks one per connection), 300 calls at most;
        # a pause lets a worker that a busy machine left asleep reach accept() too.
        while len(answered) < 300 and len({*answered, *(p.split(" in ")[1] for p in purged)}) < 2:
            answered.append(_text(await client.call_tool("where", {})))
            await anyio.sleep(0.005 * (len(answered) // 20))
    return purged, answered


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def test_two_workers_share_approvals_and_the_call_log(tmp_path: Path, postgres_url: str) -> None:
    (tmp_path / "purge_tools.py").write_text(textwrap.dedent(TOOLS))
    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}:{tmp_path}",
        "RUNS": str(tmp_path / "runs.txt"),
    }
    errors = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(
        [
            str(TOOLKIT), "serve", "purge_tools:registry", "--transport", "http",
            "--port", str(port), "--workers", "2", "--call-log", postgres_url,
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True,
    )  # fmt: skip
    try:
        _wait_healthy(base, proc)
        bins = [f"B-{i}" for i in range(4)]
        purged, answered = anyio.run(_calls, base, bins)
        proc.terminate()
        assert proc.wait(timeout=60) == 0
    finally:
        _stop_tree(proc)

    assert [p.split(" in ")[0] for p in purged] == [f"purged {b}" for b in bins]
    # Each approval was asked in one request and answered in the next: the tool ran once each.
    assert sorted((tmp_path / "runs.txt").read_text().split()) == bins
    workers = {p.split(" in ")[1] for p in purged} | set(answered)
    calls = read_calls(postgres_url, limit=100)
    ran = [(c.tool, c.decision, c.outcome) for c in calls if c.outcome != "raised"]
    assert sorted(ran) == sorted(
        [("purge_bin", "approved", "ok")] * 4 + [("where", "allow", "ok")] * len(answered)
    )
    assert {c.peer for c in calls} == {"127.0.0.1"}
    assert len(workers) == 2, f"only worker {workers} answered {len(answered) + 8} requests"
