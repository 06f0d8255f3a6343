"""The registry behind the parity matrix; also served over stdio and called by ``toolkit call``.

Every call's record is appended, as one JSON line, to the file named by ``PARITY_RECORDS``
(when set), so records can be compared across processes.
"""

from __future__ import annotations

import os
import time
from typing import Annotated

from langgraph.errors import GraphBubbleUp

from toolkit import (
    Approval,
    CallRecord,
    CallRequest,
    Decision,
    ExceptionProcessor,
    Injected,
    ToolContext,
    ToolRegistry,
    mcp_tool,
)


class MissingBin(LookupError):
    """A business error with a processor rule."""


class Interrupt(GraphBubbleUp):
    """Stands for a framework's control-flow exception; the parity tests propagate it."""


@mcp_tool(read_only=True)
def add(a: int, b: int = 1) -> int:
    """Add two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


@mcp_tool
def guarded(note: str) -> str:
    """Runs only when the policy saw the call's own context.

    Args:
        note: Anything.
    """
    return f"guarded {note}"


@mcp_tool(destructive=True)
def wipe(scope: str) -> str:
    """Delete everything in a scope (asks for approval).

    Args:
        scope: What to delete.
    """
    return f"wiped {scope}"


@mcp_tool(retries=1)
def flaky(ctx: ToolContext) -> str:
    """Fails with a transient error on the first attempt."""
    if ctx.attempt == 1:
        raise ConnectionError("backend busy")
    return f"ok after {ctx.attempt} attempts"


@mcp_tool(timeout=0.3)
def sleepy(seconds: float) -> str:
    """Sleeps past its timeout.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "rested"


@mcp_tool
def find_bin(code: str) -> str:
    """Find a bin; the processor has a rule for the error.

    Args:
        code: The bin code.
    """
    raise MissingBin(code)


@mcp_tool
def login(user: str, password: str) -> str:
    """Fails with the password in the exception text.

    Args:
        user: User name.
        password: The password.
    """
    raise PermissionError(f"bad credentials {user}:{password}")


@mcp_tool
def interrupts(note: str) -> str:
    """Raises the control-flow exception.

    Args:
        note: Anything.
    """
    raise Interrupt(note)


@mcp_tool
def whoami(note: str, ctx: ToolContext) -> str:
    """Says what its context holds.

    Args:
        note: Anything.
    """
    return f"{note}: tool={ctx.tool} call_id={'yes' if ctx.call_id else 'no'}"


@mcp_tool
def stamp(note: str, tenant: Annotated[str, Injected] = "none") -> str:
    """Stamps a note with the caller's tenant, which only the application may set.

    Args:
        note: The note.
    """
    return f"{note} for {tenant}"


@mcp_tool
async def progress(steps: int, ctx: ToolContext) -> str:
    """Reports progress after each step.

    Args:
        steps: How many steps.
    """
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
    return f"{steps} steps"


def policy(request: CallRequest) -> Decision:
    """Denies ``guarded`` unless the context is the call's own; asks before destructive tools."""
    if request.tool == "guarded":
        if not request.arguments:  # which tools may the caller see: every call has a note
            return "allow"
        ok = request.context.tool == "guarded" and bool(request.context.call_id)
        return "allow" if ok else "deny"
    return "ask" if request.spec.needs_approval else "allow"


def approver(request: CallRequest) -> Approval:
    """Approves only the scope ``tmp``."""
    if request.arguments.get("scope") == "tmp":
        return Approval(True)
    return Approval(False, reason="only tmp may be wiped")


def _write(record: CallRecord) -> None:
    path = os.environ.get("PARITY_RECORDS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(str(record) + "\n")


def build() -> ToolRegistry:
    """A fresh parity registry."""
    processor = ExceptionProcessor().on(
        MissingBin, message=lambda exc: f"Bin {exc} does not exist. Call list_bins first."
    )
    reg = ToolRegistry(
        processor=processor, policy=policy, approver=approver, retry_wait=(0.01, 0.02)
    )
    for fn in (
        add,
        guarded,
        wipe,
        flaky,
        sleepy,
        find_bin,
        login,
        interrupts,
        whoami,
        stamp,
        progress,
    ):
        reg.register(fn)
    reg.subscribe(_write)
    return reg


registry = build()
