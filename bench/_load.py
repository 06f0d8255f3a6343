"""The machine's state for a benchmark: how loaded it was, and a stated load to measure under.

A figure of CPU per call means little without the load it was taken under: a thread hand-off
that costs 5 µs on a quiet machine can cost ten times that when the other CPU is busy. So the
benchmarks print the load average they started with, and can measure again while ``count``
processes of ours each keep one CPU busy (:func:`busy`), which is a load anyone can reproduce.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["busy", "machine"]

#: A busy process ends by itself after this many seconds, even if the benchmark is killed.
_MAX_SECONDS = 300

_SPIN = (
    "import time\n"
    f"end = time.monotonic() + {_MAX_SECONDS}\n"
    "while time.monotonic() < end:\n"
    "    sum(range(1000))\n"
)


def machine() -> str:
    """``"load 0.42 on 2 CPUs"``: the 1-minute load average and the CPUs this process may use."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        load = f"load {os.getloadavg()[0]:.2f}"
    except OSError:
        load = "load unknown"
    return f"{load} on {cpus} CPUs"


@contextmanager
def busy(count: int) -> Iterator[str]:
    """``count`` processes that each keep one CPU busy while the block runs; yields a label."""
    procs = [
        subprocess.Popen([sys.executable, "-c", _SPIN], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]
    try:
        yield f"+{count} busy process{'es' if count != 1 else ''}"
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
