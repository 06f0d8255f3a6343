"""A stdio server's pipes as the SDK's streams, without tasks in between: lines stay whole
when many tasks send at once, every reply is read and parsed, and a broken pipe ends both
directions (calls in flight fail as a lost connection, later sends are refused)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator

import anyio
import anyio.abc
import mcp_types
import pytest
from mcp.shared.message import SessionMessage

from adapters.mcp_client._lines import read_lines
from adapters.mcp_client._stdio_streams import StdinWriter, StdoutReader

pytestmark = pytest.mark.anyio

#: Answers each request line with a result carrying the request's id, as a server would.
_ECHO = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    ask = json.loads(line)\n"
    "    reply = {'jsonrpc': '2.0', 'id': ask['id'], 'result': {'n': ask['params']['n']}}\n"
    "    print(json.dumps(reply), flush=True)\n"
)


def _request(n: int) -> SessionMessage:
    text = "x" * 5000  # long enough that a line takes more than one pipe write
    request = mcp_types.JSONRPCRequest(
        jsonrpc="2.0", id=n, method="echo", params={"n": n, "text": text}
    )
    return SessionMessage(request)


async def _messages(stdout: anyio.abc.ByteReceiveStream) -> AsyncIterator[SessionMessage]:
    async for line in read_lines(stdout, 1 << 20):
        yield SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line))


async def _open(script: str) -> anyio.abc.Process:
    return await anyio.open_process(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )


async def test_concurrent_senders_write_whole_lines_and_every_reply_is_read() -> None:
    process = await _open(_ECHO)
    assert process.stdin is not None and process.stdout is not None
    ended: list[bool] = []
    reader = StdoutReader(_messages(process.stdout), lambda: ended.append(True))
    writer = StdinWriter(process.stdin, process.stdout.aclose)
    async with process, anyio.create_task_group() as tg:
        for n in range(50):
            tg.start_soon(writer.send, _request(n))
        seen = set()
        with anyio.fail_after(30):
            for _ in range(50):
                item = await reader.receive()
                assert isinstance(item, SessionMessage)
                seen.add(item.message.id)  # type: ignore[union-attr]
        assert seen == set(range(50))  # no line was torn, none lost
        await process.stdin.aclose()  # the server sees EOF and exits; so does its stdout
        with anyio.fail_after(30), pytest.raises(anyio.EndOfStream):
            await reader.receive()
        assert ended == [True]
        await reader.aclose()
        assert ended == [True]  # once


async def test_a_broken_pipe_ends_the_reading_and_refuses_later_sends() -> None:
    process = await _open("import os, time; os.close(0); time.sleep(30)")
    assert process.stdin is not None and process.stdout is not None
    ended: list[bool] = []
    reader = StdoutReader(_messages(process.stdout), lambda: ended.append(True))
    writer = StdinWriter(process.stdin, process.stdout.aclose)
    async with process:
        try:
            # The first writes may land before the server closes stdin; the one that fails
            # is dropped (its call fails as a lost connection), every later one is refused.
            with anyio.fail_after(30), pytest.raises(anyio.BrokenResourceError):
                while True:
                    await writer.send(_request(1))
            with pytest.raises(anyio.EndOfStream):
                await reader.receive()  # a caller waiting for a reply is told
            assert ended == [True]
            writer.close()
            with pytest.raises(anyio.ClosedResourceError):
                await writer.send(_request(3))
        finally:
            process.kill()
