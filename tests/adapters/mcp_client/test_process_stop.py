"""Stopping a server's process leaves nothing for the garbage collector: the process is gone
and asyncio's transport (its pipes) is closed on the loop that owns it, even when the loop ends
right after and a detached grandchild still holds the pipes open."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import subprocess
import sys
from typing import Any

import anyio

from adapters.mcp_client._process import stop_process

#: A server that ignores SIGTERM and leaves a grandchild in a session of its own (beyond the
#: group signals) holding stdout and stderr open for 30 s; it prints the grandchild's pid.
_STUBBORN = (
    "import signal, subprocess, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'],\n"
    "                         start_new_session=True)\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(60)\n"
)


async def _start_and_stop(grandchildren: list[int]) -> Any:
    process = await anyio.open_process(
        [sys.executable, "-c", _STUBBORN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdout is not None
    grandchildren.append(int((await process.stdout.receive()).split()[0]))
    await stop_process(process, grace=0.2)  # no marker: the detached grandchild lives on
    return process


def test_a_stopped_process_leaves_no_transport_for_the_garbage_collector() -> None:
    seen: list[str] = []
    grandchildren: list[int] = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(f"{u.exc_value!r} in {u.object!r}")
    try:
        for _ in range(2):
            process = anyio.run(_start_and_stop, grandchildren)  # the loop ends right after
            assert process.returncode is not None
            transport = process._process._transport  # asyncio's, as the rule names it
            assert transport.is_closing()
            del process, transport
            gc.collect()
    finally:
        sys.unraisablehook = old
        for pid in grandchildren:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert seen == []
