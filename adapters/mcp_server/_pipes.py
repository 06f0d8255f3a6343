"""stdin and stdout watched by the event loop: the stdio transport without worker threads or tasks.

The SDK's ``stdio_server`` reads and writes through ``anyio.wrap_file``, so every line read,
every write and every flush is a hop to a worker thread: three per tool call, each costing
tens of microseconds of CPU and as much latency; and between the pipes and the server it puts
a reader task and a writer task, each a hand-off between tasks (a loop turn) per message.
When a client starts the server, stdin and stdout are pipes (or sockets), which asyncio can
watch directly. :func:`loop_pipes` gives the server its two streams itself: the server's
receive loop reads and parses each line (:class:`LineReader`), and each reply is written by
the task that sends it (:class:`PipeWriter`). It does what the SDK does for its own streams:
while serving, fd 0 reads the null device and fd 1 goes to stderr, so a tool's stray
``print`` never corrupts the protocol; both are restored on exit.

Anything else (a terminal, a file, stdout shared with stderr, Windows, another event loop)
gets ``None`` and the caller keeps the SDK's threaded streams.

Design rule: a bad line never goes unanswered nor ends the server. A line that is not a
valid JSON-RPC message but carries an ``id`` gets an error reply for that id (``-32600``, or
``-32700`` when it is not JSON at all); a line over the size cap is dropped (the rest of it
is skipped) and serving goes on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
import warnings
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import mcp_types
from mcp.shared.message import SessionMessage

from adapters.mcp_server._parse_guard import too_deep

__all__ = ["LineReader", "PipeWriter", "loop_pipes"]

_MAX_LINE_ENV = "TOOLKIT_STDIO_MAX_LINE"
_OLD_MAX_LINE_ENV = "MCP_TOOLKIT_STDIO_MAX_LINE"  # its first name: still read, with a warning


def _max_line() -> int:
    value = os.environ.get(_MAX_LINE_ENV)
    if value is None and (value := os.environ.get(_OLD_MAX_LINE_ENV)) is not None:
        warnings.warn(
            f"{_OLD_MAX_LINE_ENV} is now called {_MAX_LINE_ENV}, like the other TOOLKIT_* "
            "settings; set that one instead (the old name will stop working)",
            FutureWarning,
            stacklevel=2,
        )
    return int(value) if value is not None else 256 * 1024 * 1024


#: Longest line read (a request is one line); far above any honest message. Settable with
#: the environment variable ``TOOLKIT_STDIO_MAX_LINE`` (bytes).
_MAX_LINE = _max_line()

logger = logging.getLogger("adapters.mcp_server")


class LineReader:
    """The valid JSON-RPC messages of a pipe, one a line, as the SDK's read stream.

    Each line is decoded as UTF-8 and parsed once, by the task that reads the stream (the
    SDK's receive loop): no reader task and memory stream between the pipe and the server.
    Bad lines are answered (when they carry an id) through ``reply`` and skipped. The stream
    ends (``EndOfStream``) at end of file or after :meth:`aclose`.
    """

    def __init__(
        self, reader: asyncio.StreamReader, reply: Callable[[str], None] | None = None
    ) -> None:
        self._reader = reader
        self._reply = reply or (lambda _text: None)
        self._closed = False
        self._lead: deque[SessionMessage] = deque()  # read ahead, to be received again

    async def receive(self) -> SessionMessage:
        """The next valid message.

        Raises:
            anyio.EndOfStream: The pipe reached end of file, or the stream was closed.
        """
        if self._lead:
            return self._lead.popleft()
        while not self._closed:
            try:
                line = await self._reader.readline()
            except ValueError:
                await self._skip_rest()
                continue
            if not line:
                break
            text = line.decode("utf-8", errors="replace")
            if text.strip() and (message := self._parse(text)) is not None:
                return SessionMessage(message)
        self._closed = True
        raise anyio.EndOfStream

    async def peek_opening(self, keep: int) -> mcp_types.JSONRPCRequest | None:
        """Read up to the first request (``None`` at end of file) and put it back, with at
        most ``keep`` messages that came before it (later ones are dropped), to be received
        again in order."""
        lead: list[SessionMessage] = []
        opening = None
        while opening is None:
            try:
                item = await self.receive()
            except anyio.EndOfStream:
                break
            if isinstance(item.message, mcp_types.JSONRPCRequest):
                opening = item.message
            elif len(lead) >= keep:
                logger.debug("dropped a message received before the first request: %r", item)
                continue
            lead.append(item)
        self._lead.extend(lead)
        return opening

    async def _skip_rest(self) -> None:
        """Drop the rest of an oversized line (asyncio already dropped what it had)."""
        logger.warning("dropped a request line over %d bytes", _MAX_LINE)
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
                continue
            except asyncio.IncompleteReadError:
                return
            if chunk.endswith(b"\n"):
                return

    def _parse(self, text: str) -> mcp_types.JSONRPCMessage | None:
        """``text`` as a message, or ``None`` when it is not one (then answered if it has an id)."""
        if too_deep(text.encode()):
            self._error(None, mcp_types.PARSE_ERROR, "Parse error: the JSON is nested too deeply")
            return None
        try:
            return mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except (ValueError, RecursionError):
            pass
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            self._error(None, mcp_types.PARSE_ERROR, "Parse error: the line is not valid JSON")
            return None
        rid = data.get("id") if isinstance(data, dict) else None
        if isinstance(rid, str | int) and not isinstance(rid, bool):
            self._error(
                rid, mcp_types.INVALID_REQUEST, "Invalid request: not a valid JSON-RPC message"
            )
        return None

    def _error(self, rid: str | int | None, code: int, message: str) -> None:
        reply = {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
        self._reply(json.dumps(reply) + "\n")

    async def aclose(self) -> None:
        """Stop reading (the pipe itself is closed by :func:`loop_pipes`)."""
        self._closed = True
        self._lead.clear()

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> LineReader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closed = True


class PipeWriter:
    """The pipe as the SDK's write stream: each message is written, as one line, by the task
    that sends it (no writer task to hand it to), and waits only while the reader is behind.

    A pipe the reader has closed makes sends raise ``BrokenResourceError`` (the SDK drops the
    reply); sends after :meth:`aclose` raise ``ClosedResourceError``.
    """

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._closed = False

    async def send(self, item: SessionMessage, /) -> None:
        """Write one message as one line."""
        if self._closed:
            raise anyio.ClosedResourceError
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        try:
            if self._writer.transport.is_closing():
                raise ConnectionResetError
            self._writer.write(data.encode() + b"\n")
            await self._writer.drain()
        except OSError:  # the reader is gone (BrokenPipeError, ConnectionResetError)
            raise anyio.BrokenResourceError from None

    async def aclose(self) -> None:
        """Refuse further messages (the pipe itself is closed by :func:`loop_pipes`)."""
        self._closed = True

    async def __aenter__(self) -> PipeWriter:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._closed = True


@asynccontextmanager
async def loop_pipes() -> AsyncIterator[tuple[LineReader, PipeWriter] | None]:
    """stdin and stdout as loop-driven streams, or ``None`` where that is not safe."""
    if not _usable():
        yield None
        return
    loop = asyncio.get_running_loop()
    async with AsyncExitStack() as stack:
        stdin_fd = _claim(stack, 0, lambda: os.open(os.devnull, os.O_RDONLY))
        stdout_fd = _claim(stack, 1, lambda: os.dup(2))
        reader = asyncio.StreamReader(limit=_MAX_LINE)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), _unowned(stdin_fd, "rb")
        )
        stack.callback(read_transport.close)
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, _unowned(stdout_fd, "wb")
        )
        stack.callback(write_transport.close)
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        yield LineReader(reader, lambda text: writer.write(text.encode())), PipeWriter(writer)


def _usable() -> bool:
    if sys.platform == "win32":
        return False
    try:
        asyncio.get_running_loop()
        if sys.stdin.fileno() != 0 or sys.stdout.fileno() != 1:
            return False
        stdin, stdout, stderr = os.fstat(0), os.fstat(1), os.fstat(2)
    except (RuntimeError, AttributeError, ValueError, OSError):
        return False
    # A terminal's or a shared pipe's non-blocking flag would leak to stderr and to the shell.
    shared = (stdout.st_dev, stdout.st_ino) == (stderr.st_dev, stderr.st_ino)
    return _is_pipe(stdin) and _is_pipe(stdout) and not shared


def _is_pipe(info: os.stat_result) -> bool:
    return stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)


def _claim(stack: AsyncExitStack, fd: int, diversion: Callable[[], int]) -> int:
    """Move the wire behind ``fd`` to a private descriptor; point ``fd`` at ``diversion``."""
    import fcntl

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    blocking = os.get_blocking(private)

    def restore() -> None:
        os.set_blocking(private, blocking)  # the flag belongs to the pipe, not to a descriptor
        os.dup2(private, fd)
        os.close(private)

    stack.callback(restore)
    other = diversion()
    try:
        os.dup2(other, fd)
    finally:
        os.close(other)
    return private


def _unowned(fd: int, mode: str) -> Any:
    # The transport closes its file; the descriptor stays ours until it is restored.
    return os.fdopen(fd, mode, buffering=0, closefd=False)
