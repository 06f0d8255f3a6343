"""``toolkit serve --workers 2 --metrics``: every scrape reports the sum over both workers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from tests.ops.test_workers import _call, _port, _stop_tree, _wait_healthy

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = Path(sys.executable).parent / "toolkit"

TOOLS = '''
import os
from toolkit import ToolRegistry, mcp_tool

@mcp_tool(read_only=True)
def where() -> str:
    """Which worker answers."""
    return str(os.getpid())

registry = ToolRegistry()
registry.register(where)
'''

_COUNT = re.compile(
    r'^toolkit_tool_calls_total\{code="OK",outcome="ok",tool="where"\} (\S+)$', re.M
)


def test_every_scrape_reports_the_sum_over_the_workers(tmp_path: Path) -> None:
    (tmp_path / "where_tools.py").write_text(textwrap.dedent(TOOLS))
    port = _port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{tmp_path}"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    errors = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(
        [
            str(TOOLKIT), "serve", "where_tools:registry", "--transport", "http",
            "--port", str(port), "--workers", "2", "--metrics",
        ],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors, text=True,
    )  # fmt: skip
    try:
        _wait_healthy(base, proc)
        pids: list[str] = []
        # New connections until both workers answered (the kernel picks one), 40 at most.
        while len(pids) < 40 and (len(pids) < 6 or len(set(pids)) < 2):
            pids.append(_call(base, "where", {})["content"][0]["text"])
        assert len(set(pids)) == 2, f"one worker answered all {len(pids)} calls"
        scrapes = []
        for _ in range(6):  # each on a new connection: either worker answers
            with httpx.Client(timeout=30) as client:
                text = client.get(f"{base}/metrics").text
            scrapes.append([float(n) for n in _COUNT.findall(text)])
        proc.terminate()
        assert proc.wait(timeout=60) == 0
    finally:
        _stop_tree(proc)
    assert scrapes == [[float(len(pids))]] * 6, (scrapes, pids)
