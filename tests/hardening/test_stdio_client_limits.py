"""The stdio client reads lines in bounded memory; no process of a server outlives close()."""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from adapters.mcp_client._lines import read_lines
from tests.hardening.conftest import misbehaving, runs
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode


class _Chunks:
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


async def _collect(chunks: list[bytes], cap: int) -> list[tuple[bytes, bool, int]]:
    return [(bytes(x), x.oversized, x.size) async for x in read_lines(_Chunks(chunks), cap)]  # type: ignore[arg-type]


def test_lines_split_across_chunks_and_oversized_ones_keep_head_and_tail() -> None:
    chunks = [b'{"a":', b"1}\n\n", b'{"id":7,"x":"' + b"y" * 50, b"y" * 50, b'"}\n{"b":2}\n']
    lines = anyio.run(_collect, chunks, 64)
    assert lines[0] == (b'{"a":1}', False, 7)
    assert lines[1][1] is True and lines[1][2] == 115
    assert lines[1][0].startswith(b'{"id":7')
    assert lines[2] == (b'{"b":2}', False, 7)


def test_oversized_reply_fails_that_call_and_the_next_call_works(log: Path) -> None:
    async def main() -> tuple[object, object, int]:
        config = misbehaving(log, max_message_bytes=100_000)
        async with McpClientPool(config, grace=0.5) as pool:
            registry = ToolRegistry()
            await pool.register_into(registry)
            huge = await registry.call("m_huge", {"size": 300_000})
            small = await registry.call("m_huge", {"size": 10})
            return huge, small, pool.connection("m").connects

    huge, small, connects = anyio.run(main)
    assert huge.is_error and huge.error.code == ErrorCode.EXECUTION_ERROR  # type: ignore[attr-defined]
    assert "max_message_bytes" in huge.error.message  # type: ignore[attr-defined]
    assert small.content == "x" * 10  # type: ignore[attr-defined]
    assert connects == 1
    assert runs(log, "huge") == 2


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


@pytest.mark.parametrize("detach", [False, True])
def test_no_grandchild_survives_close_even_with_setsid(log: Path, detach: bool) -> None:
    async def main() -> int:
        async with McpClientPool(misbehaving(log), grace=0.3) as pool:
            registry = ToolRegistry()
            await pool.register_into(registry)
            result = await registry.call("m_spawn", {"detach": detach})
            return int(str(result.content))

    pid = anyio.run(functools.partial(main))
    assert int((log / "grandchild.pid").read_text()) == pid
    deadline = anyio.run(_wait_gone, pid)
    assert deadline, f"grandchild {pid} outlived the pool"


async def _wait_gone(pid: int) -> bool:
    with anyio.move_on_after(5):
        while _alive(pid):
            await anyio.sleep(0.05)
    return not _alive(pid)
