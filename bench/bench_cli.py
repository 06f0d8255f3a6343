"""Start-up cost of the ``toolkit`` command line against ``import toolkit``.

Run: ``.venv/bin/python bench/bench_cli.py [--quick]`` (``--quick``: fewer runs, for smoke runs).

Each row is the median CPU time (user + system, of the child process) of a fresh interpreter
doing one thing: importing the core; ``toolkit --help``; ``toolkit --version``; and, for scale,
importing the MCP SDK's client and LangChain's tools, which sub-commands load only when they run.
"ratio" is the row's CPU time divided by ``import toolkit``'s: ``--help`` should stay close to 1.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

from rich.console import Console
from rich.table import Table

_HELP = "import sys; from adapters.cli import app\ntry:\n    app(sys.argv[1:])\nexcept SystemExit:\n    pass"

CASES: dict[str, list[str]] = {
    "python -c pass (interpreter only)": ["-c", "pass"],
    "import toolkit": ["-c", "import toolkit"],
    "toolkit --help": ["-c", _HELP, "--help"],
    "toolkit --version": ["-c", _HELP, "--version"],
    "import mcp.client (loaded by mcp/serve only)": ["-c", "import mcp.client"],
    "import langchain_core.tools (loaded by demo only)": ["-c", "import langchain_core.tools"],
}


def _cpu_seconds(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, *args], check=True, stdout=subprocess.DEVNULL, env={**os.environ}
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs per row instead of 9")
    runs = 3 if parser.parse_args().quick else 9
    medians = {
        name: statistics.median(_cpu_seconds(args) for _ in range(runs))
        for name, args in CASES.items()
    }
    base = medians["import toolkit"] or 1e-9
    table = Table(title=f"CLI start-up, median CPU ms of {runs} fresh processes")
    table.add_column("what")
    table.add_column("CPU ms", justify="right")
    table.add_column("ratio to import toolkit", justify="right")
    for name, seconds in medians.items():
        table.add_row(name, f"{seconds * 1000:.0f}", f"{seconds / base:.2f}")
    Console(width=120).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
