"""A stdio server as a child process: minimal environment, pipes, bounded shutdown.

The SDK's ``stdio_client`` merges its own default environment into the child's and has fixed
grace periods; this transport gives the server only what the config names and lets the pool
choose how long shutdown may take. The child runs in its own session (process group), so the
whole tree — ``npx`` and the ``node`` it starts, say — is signalled together, and anything
left in the group after the server exits is killed too. Helpers that leave the group
(``setsid``) are found by the marker in their environment (see ``_reaper``).

Design rule: the server's stdout is read line by line in linear time, and one message may
not exceed ``max_message_bytes`` of its config. A longer reply fails the request it answers
(with an error that says so) and is dropped; the connection and the next call go on.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

import anyio
import anyio.abc
import mcp_types
from mcp.shared.message import SessionMessage

from adapters.mcp_client._config import McpServerConfig, expand
from adapters.mcp_client._lines import Line, read_lines
from adapters.mcp_client._reaper import MARKER_VAR, kill_all, new_marker, server_processes
from adapters.mcp_client._sdk_private import TransportStreams
from adapters.mcp_client._stdio_streams import StdinWriter, StdoutReader

__all__ = ["ChildProcess", "minimal_env", "server_command", "stdio_transport"]

logger = logging.getLogger("adapters.mcp_client")

#: Commands that mean "a Python interpreter" in a config (as Claude Desktop's examples write it).
_PYTHON = frozenset({"python", "python3"})


def server_command(config: McpServerConfig) -> str:
    """The program that starts ``config``'s server.

    A bare ``python`` (or ``python3``) is the interpreter running mcp-toolkit, where the
    packages it needs are installed, not whichever one comes first on ``PATH``.
    """
    command = config.command or ""
    if command in _PYTHON and sys.executable:
        logger.info(
            "MCP server %r: %r in its config runs %s, the interpreter running mcp-toolkit",
            config.name,
            command,
            sys.executable,
        )
        return sys.executable
    return command


#: The only variables a stdio server inherits from us; the config adds the rest.
INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")

# A few stray lines (a banner, a warning) are tolerated; a stream of them is a broken server.
_MAX_STRAY_LINES = 10
_STDERR_LINES = 20
_POLL = 0.02
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def minimal_env(config: McpServerConfig) -> dict[str, str]:
    """The environment of a stdio server: a few safe variables plus the config's ``env``."""
    env = {k: os.environ[k] for k in INHERITED_ENV if k in os.environ}
    env.update({k: expand(v) for k, v in config.env.items()})
    return env


def _too_long(line: Line, limit: int) -> SessionMessage | None:
    """An error reply for the request an oversized line answered (if its id can be found)."""
    found = _ID.search(line)
    if found is None:
        return None
    request_id = mcp_types.jsonrpc_message_adapter.validate_json(
        b'{"jsonrpc":"2.0","id":' + found.group(1) + b',"result":{}}'
    ).id  # type: ignore[union-attr]
    message = (
        f"the server's reply was {line.size} bytes, over the limit of {limit} bytes for one "
        "message; ask for less, or raise 'max_message_bytes' in the server's config"
    )
    error = mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=message)
    return SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


@dataclass
class ChildProcess:
    """What we know about a running stdio server (for messages and tests).

    Attributes:
        pid: The process id (also its process-group id).
        stderr_tail: The last lines the server wrote to stderr.
        violation: The first protocol violation seen on stdout, if the connection was cut.
    """

    pid: int = 0
    marker: str = field(default_factory=new_marker)
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=_STDERR_LINES))
    violation: str | None = None
    returncode: int | None = None


@asynccontextmanager
async def stdio_transport(
    config: McpServerConfig,
    child: ChildProcess,
    *,
    grace: float,
    redact: Callable[[str], str],
    on_eof: Callable[[], None],
) -> AsyncIterator[TransportStreams]:
    """Start ``config``'s server and yield MCP streams over its stdin/stdout.

    On exit: stop writing, close stdin, wait ``grace`` seconds, SIGTERM the process group,
    wait ``grace`` again, SIGKILL the group. Every step is bounded and shielded from
    cancellation, so no exit path leaves a live child.
    """
    process = await anyio.open_process(
        [server_command(config), *(expand(a) for a in config.args)],
        env={**minimal_env(config), MARKER_VAR: child.marker},
        cwd=config.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    child.pid = process.pid
    assert process.stdin is not None and process.stdout is not None
    stdout = process.stdout

    async def messages() -> AsyncIterator[SessionMessage]:
        stray = 0
        limit = config.max_message_bytes
        async for line in read_lines(stdout, limit):
            if line.oversized:
                reply = _too_long(line, limit)
                logger.warning(
                    "server %r wrote a %d-byte message, over the %d-byte limit; dropped",
                    config.name,
                    line.size,
                    limit,
                )
                if reply is not None:
                    yield reply
                continue
            try:
                message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                stray += 1
                text = redact(line.decode("utf-8", "replace").strip())[:120]
                logger.warning("server %r wrote a non-JSON-RPC line: %s", config.name, text)
                if stray > _MAX_STRAY_LINES:
                    child.violation = text
                    return
                continue
            yield SessionMessage(message)

    # The SDK's reader task reads and parses each line itself, and each message is written
    # by the task that sends it: no pump or writer task, no hand-off between tasks.
    read_stream = StdoutReader(messages(), on_eof)
    # A failed write ends the reading too: calls in flight fail as a lost connection.
    write_stream = StdinWriter(process.stdin, stdout.aclose)

    async def read_stderr() -> None:
        assert process.stderr is not None
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in process.stderr:
                for line in chunk.decode("utf-8", "replace").splitlines():
                    if line.strip():
                        child.stderr_tail.append(redact(line.rstrip()))

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_stderr)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                write_stream.close()
                await read_stream.aclose()
                await stop_process(process, grace, child.marker)
                child.returncode = process.returncode
            tg.cancel_scope.cancel()


async def stop_process(process: anyio.abc.Process, grace: float, marker: str = "") -> None:
    """Close stdin, then escalate SIGTERM -> SIGKILL on the process group, each step bounded.

    Then every process the server started (its tree, taken before the first step, and every
    process carrying its ``marker``) is killed, so none survives, ``setsid`` or not.
    """
    started = server_processes(process.pid, marker) if marker else set()
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            _signal_group(process.pid, sig)
        if await _exited(process, grace):
            break
    # Grandchildren that outlived the server (reparented, same group) go too.
    _signal_group(process.pid, signal.SIGKILL)
    if marker:
        kill_all(started, marker)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await stream.aclose()
    _close_transport(process)


def _close_transport(process: anyio.abc.Process) -> None:
    """Close asyncio's transport of the process now, on the loop that owns it.

    asyncio closes it by itself once it has handled the exit and the EOF of both pipes, a loop
    turn or more after the exit. A pool closed in the last turns of ``anyio.run`` would leave it
    to the garbage collector, which closes it after the loop is gone (an "Event loop is closed"
    unraisable exception, and the pipes' descriptors held until then). anyio gives no public
    handle on it; on another backend there is nothing here to close.
    """
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    if transport is not None and not transport.is_closing():
        transport.close()


async def _exited(process: anyio.abc.Process, timeout: float) -> bool:
    # Poll returncode: process.wait() would also wait for pipe EOF held open by grandchildren.
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    return process.returncode is not None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
