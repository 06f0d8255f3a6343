"""Keep a worker thread on the CPU of the thread that waits for it, while the call is short.

Handing a call to a worker thread and back costs two wake-ups. When the woken thread sits on
another, idle CPU, each wake-up is an inter-processor interrupt; on a virtual machine that is
an exit to the hypervisor, and the hand-off costs about 45-50 µs of CPU (measured on a 2-vCPU
Firecracker VM). When both threads share one CPU, the waiter simply yields to the worker and
back: about 5 µs. So a worker is pinned to its caller's CPU for the start of each call and set
free again (:func:`unpin`) when a call runs longer than a couple of milliseconds, so a long or
stuck function never holds a CPU it could leave.

Linux only (``sched_getcpu`` through ``ctypes``, ``os.sched_setaffinity``); elsewhere, on a
single allowed CPU, or with ``TOOLKIT_PIN_WORKERS=0`` in the environment, nothing is pinned.
The first refused pinning (a cpuset changed under the process) turns pinning off for good.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["allowed", "current_cpu", "pin", "unpin"]

log = logging.getLogger("toolkit.calls")

_NO_CPU = -1


def _cpu_reader() -> Callable[[], int] | None:
    """``sched_getcpu`` from the C library, or ``None`` where pinning cannot help or work."""
    if not sys.platform.startswith("linux") or not hasattr(os, "sched_setaffinity"):
        return None
    if os.environ.get("TOOLKIT_PIN_WORKERS", "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    try:
        if len(os.sched_getaffinity(0)) < 2:
            return None
        import ctypes

        getcpu = ctypes.CDLL(None, use_errno=True).sched_getcpu
        getcpu.restype, getcpu.argtypes = ctypes.c_int, ()
        if getcpu() < 0:
            return None
    except (OSError, AttributeError):
        return None
    return getcpu  # type: ignore[no-any-return]


_UNREAD: Any = object()
#: ``sched_getcpu``, ``None`` (no pinning), or not looked up yet (``ctypes`` loads on first use).
_reader: list[Callable[[], int] | None] = [_UNREAD]


def current_cpu() -> int:
    """The CPU this thread runs on, or -1 when workers are not pinned."""
    read = _reader[0]
    if read is _UNREAD:
        read = _reader[0] = _cpu_reader()
    return _NO_CPU if read is None else read()


def allowed(thread_id: int) -> frozenset[int] | None:
    """The CPUs the thread may run on now (to give back on :func:`unpin`); ``None``: not pinned."""
    if not thread_id or current_cpu() < 0:
        return None
    try:
        return frozenset(os.sched_getaffinity(thread_id))
    except OSError:
        return None


def pin(thread_id: int, cpu: int) -> bool:
    """Keep the thread with native id ``thread_id`` on ``cpu``; whether it worked."""
    try:
        os.sched_setaffinity(thread_id, (cpu,))
    except OSError as exc:  # the CPU left our cpuset, or the thread is gone: stop pinning
        if _reader[0] is not None:
            log.debug("worker threads are no longer pinned to their caller's CPU: %s", exc)
        _reader[0] = None
        return False
    return True


def unpin(thread_id: int, cpus: frozenset[int]) -> None:
    """Let the thread with native id ``thread_id`` run on ``cpus`` again."""
    with contextlib.suppress(OSError):  # the thread has ended: nothing holds a CPU
        os.sched_setaffinity(thread_id, cpus)
