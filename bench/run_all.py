"""Run every ``bench/bench_*.py`` in turn (``make bench``); each prints its own ratio table.

Usage: ``python bench/run_all.py [--quick]`` (``--quick`` is passed on to scripts that take it).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent


def main() -> int:
    console = Console()
    extra = [a for a in sys.argv[1:] if a == "--quick"]
    summary = Table(title="benchmarks run")
    summary.add_column("script")
    summary.add_column("status")
    summary.add_column("seconds", justify="right")
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        console.rule(f"[bold]{script.name}")
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(script), *extra], cwd=HERE.parent)
        seconds = time.perf_counter() - started
        failed += code != 0
        summary.add_row(
            script.name, "[green]ok" if code == 0 else f"[red]exit {code}", f"{seconds:.1f}"
        )
    console.print(summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
