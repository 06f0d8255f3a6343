"""Every benchmark's ``--quick`` run goes to the end and prints every row (figures not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ROWS = {
    "bench_langgraph.py": (
        "ToolNode, one call",
        "agent turn (2 model + 1 tool)",
        "10 x 100 ms slow_async",
        "10 x 100 ms slow_sync",
        "ainvoke",
        "create_agent",
    ),
    "bench_workers.py": (
        "toolkit serve --workers",
        "CPU cores",
        "The clients share the",
        "Our server (with --metrics) adds about",
        "(MCPServer: ",
    ),
    "bench_middleware.py": (
        "call_sync, sync tool",
        "await call, async tool",
        "three middlewares",
        "run budget",
        "the slot's check with no middleware",
        "three middlewares add at most",
    ),
    "bench_cli.py": ("import toolkit", "toolkit --help", "toolkit --version", "ratio"),
    "bench_startup.py": (
        "stdio server start-up to its initialize reply",
        "ours, jsonschema imported first",
        "MCPServer",
        "wall / MCPServer",
    ),
    "bench_core.py": (
        "decorate 100 functions",
        "build 100 input schemas",
        "decorate + build",
        "call sync tool: call_sync / invoke",
        "call two-integer tool add(a, b)",
        "call async tool: await call / ainvoke",
        "await call of a sync tool (worker thread)",
        "µs CPU",
        "langchain",
        "as found (load",
    ),
    "bench_search.py": (
        "recall@k on",
        "generated, paraphrased",
        "tokens per turn",
        "search median / serialize every spec",
        "index build / build input schemas",
        "semantic",  # the rows, or the line saying that the model is not installed
    ),
    "bench_search_heldout.py": (
        "bfcl (written by others)",
        "held-out",
        "written by BFCL's authors",
        "project: recall@1/5/10",
        "have a sibling of the wanted tool",
        "search latency at 2,000 tools",
    ),
    "bench_search_variants.py": (
        "lexical variants, tune half",
        "+ 0.2 x name coverage",
        "RM3 feedback",
        "letter trigrams",
        "hybrid",  # the table, or the line saying that the model is not installed
        "wordllama",  # its tables, or the line saying that it is not installed
    ),
    "bench_http.py": (
        "template render, 100 items",
        "GET call, JSON result",
        "GET call + response template",
        "POST call, JSON body",
        "call_sync / httpx.Client",
        "await call / httpx.AsyncClient",
        "CPU per call",
    ),
    "bench_gateway.py": (
        "stdio client, stdio remote, 2026-07-28",
        "stdio client, http remote, 2025-11-25",
        "http client, stdio remote, 2025-11-25",
        "http client, http remote, 2026-07-28",
        "front CPU µs ours/proxy",
        "remote CPU µs ours/proxy/direct",
        "wall ms ours/proxy/direct",
    ),
    "bench_remote_gap.py": (
        "the remote's CPU per call",
        "back to back",
        "idle gap",
        "busy gap",
        "byte relay",
    ),
    "bench_mcp_client.py": (
        "registry.call/raw",
        "pooled/raw",
        "new session per call",
        "20x100ms/1",
    ),
    "bench_results.py": (
        "cut server_log",
        "cut rows",
        "cut rows_text",
        "cut report",
        "small result, budget on",
        "small result, budget off",
    ),
    "bench_mcp_server.py": (
        "stdio auto",
        "stdio legacy",
        "http auto, both JSON",
        "http legacy, both JSON",
        "http auto, both SSE",
        "http legacy, both SSE",
        "sync tool, auto",
        "async tool, legacy",
        "build server",
        "build + first tools/list",
        "tools/list time",
        "tools/list size",
        "MCPServer calls/s",
        "server CPU",
        "server CPU per tools/call over stateless HTTP",
        "sync tool, 2025-11-25",
        "async tool, 2026-07-28",
    ),
}


@pytest.mark.xdist_alone  # each run is long and shares nothing: one worker each
@pytest.mark.parametrize("script", sorted(ROWS))
def test_quick_run_prints_every_row(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), "--quick"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for row in ROWS[script]:
        assert row in done.stdout, f"{row!r} missing from:\n{done.stdout}"


@pytest.mark.parametrize(
    ("part", "model"), [("e5", "multilingual-e5-small (4-bit)"), ("mpnet", "all-mpnet-base-v2")]
)
def test_a_model_set_against_minilm_says_when_it_cannot_run(
    part: str, model: str, tmp_path: Path
) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}  # no BENCH_EMBED_PYTHON
    script = str(ROOT / "bench" / "bench_search_variants.py")
    done = subprocess.run(
        [sys.executable, script, "--quick", "--part", part],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert f"{model} against all-MiniLM-L6-v2 skipped: all-MiniLM-L6-v2 is not installed" in said
