"""Remote tools called from sync code, from other event loops and from other threads."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import anyio.to_thread
import pytest

from adapters.langchain import to_langchain_tools
from adapters.mcp_client import McpClientPool
from tests.adapters.mcp_client.conftest import descendants, stdio
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode
from toolkit.registry import ToolRegistry

CONFIG = {"s": stdio(call_timeout=1.0)}


@contextmanager
def pool_on_thread(registry: ToolRegistry) -> Iterator[McpClientPool]:
    """A pool opened with ``async with`` on an event loop in its own thread (like a kernel's)."""
    ready, stop = threading.Event(), threading.Event()
    box: dict[str, Any] = {}

    async def main() -> None:
        async with McpClientPool(CONFIG, grace=0.5) as pool:
            await pool.register_into(registry)
            box["pool"] = pool
            ready.set()
            await anyio.to_thread.run_sync(stop.wait)

    def run() -> None:
        try:
            anyio.run(main)
        except BaseException as exc:
            box["error"] = exc
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30), "the pool's loop did not start within 30 s"
    try:
        if "error" in box:
            raise box["error"]
        yield box["pool"]
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
    if "error" in box:
        raise box["error"]


def test_call_sync_with_a_pool_opened_from_sync_code() -> None:
    before = descendants()
    registry = ToolRegistry()
    with McpClientPool(CONFIG, grace=0.5) as pool:
        added = pool.register_into_sync(registry)
        assert "s_echo" in {t.name for t in added}
        assert pool.status("s").state == "ready"
        assert registry.call_sync("s_echo", {"text": "hi"}).content == "hi"
        failed = registry.call_sync("s_fail", {"reason": "no stock"})
        assert failed.code == ErrorCode.EXECUTION_ERROR
        assert "cannot do it: no stock" in failed.content
        started = time.monotonic()
        hung = registry.call_sync("s_hang", {})
        assert hung.code == ErrorCode.TIMEOUT
        assert time.monotonic() - started < 1.0 + 2
        assert registry.call_sync("s_add", {"a": 2, "b": 3}).structured == {"result": 5}
    assert descendants() <= before
    closed = registry.call_sync("s_echo", {"text": "late"})
    assert closed.code == ErrorCode.UNREACHABLE and "closed" in closed.content


def test_start_and_close_are_the_with_block_in_two_calls() -> None:
    before = descendants()
    pool = McpClientPool(CONFIG, grace=0.5).start()
    try:
        with pytest.raises(RuntimeError, match="already open"):
            pool.start()
        registry = ToolRegistry()
        pool.register_into_sync(registry, prefix="")
        assert registry.call_sync("echo", {"text": "x"}).content == "x"
    finally:
        pool.close()
    pool.close()  # a second close does nothing
    assert descendants() <= before
    with pytest.raises(RuntimeError, match=r"not open.*pool\.start\(\)"):
        pool.register_into_sync(ToolRegistry())


def test_call_sync_while_the_pool_lives_on_another_loop_in_a_thread() -> None:
    before = descendants()
    registry = ToolRegistry()
    with pool_on_thread(registry) as pool:
        assert registry.call_sync("s_echo", {"text": "hi"}).content == "hi"
        failed = registry.call_sync("s_fail", {"reason": "gone"})
        assert (failed.code, "cannot do it: gone" in failed.content) == (
            ErrorCode.EXECUTION_ERROR,
            True,
        )
        started = time.monotonic()
        assert registry.call_sync("s_hang", {}).code == ErrorCode.TIMEOUT
        assert time.monotonic() - started < 1.0 + 2
        other = ToolRegistry()
        pool.register_into_sync(other, prefix="x_")
        assert other.call_sync("x_add", {"a": 1, "b": 1}).structured == {"result": 2}
    assert descendants() <= before
    closed = registry.call_sync("s_echo", {"text": "late"})
    assert closed.code == ErrorCode.UNREACHABLE
    assert "McpClientPool is closed" in closed.content


@pytest.mark.anyio
async def test_a_second_event_loop_in_a_thread_calls_calls_many_and_cancels() -> None:
    # No wall-clock budget: the 20 calls prove they run at once by meeting on the server (a
    # call waits there until all 20 are in flight), so a busy machine only makes them slower.
    async with McpClientPool({"s": stdio(call_timeout=60.0)}, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)

        async def second_loop() -> dict[str, Any]:
            echo = await registry.call("s_echo", {"text": "from afar"})
            calls = [("s_meet", {"n": 20, "tag": str(i)}, f"c{i}") for i in range(20)]
            many = await registry.call_many(calls)
            started = time.monotonic()
            with anyio.move_on_after(0.3) as scope:
                await registry.call("s_hang", {})
            cancelled_in = time.monotonic() - started
            after = await registry.call("s_echo", {"text": "still here"})
            return {
                "echo": echo.content,
                "many": [r.content for r in many],
                "cancelled": scope.cancelled_caught,
                "cancelled_in": cancelled_in,
                "after": after.content,
            }

        out = await anyio.to_thread.run_sync(anyio.run, second_loop)
        assert out["echo"] == "from afar"
        assert out["many"] == [str(i) for i in range(20)]
        # Cancelled by the caller, long before the 60 s the server's calls may take.
        assert out["cancelled"] and out["cancelled_in"] < 30
        assert out["after"] == "still here"
        assert (await registry.call("s_echo", {"text": "home"})).content == "home"
        assert pool.connection("s").connects == 1


@pytest.mark.anyio
async def test_call_sync_on_the_pools_own_loop_answers_instead_of_hanging() -> None:
    # A notebook cell: the pool is on the kernel's loop and the cell blocks that loop.
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        started = time.monotonic()
        blocked = registry.call_sync("s_echo", {"text": "hi"})
        assert time.monotonic() - started < 10
        assert blocked.code == ErrorCode.UNREACHABLE
        assert "await registry.call" in blocked.content
        with pytest.raises(RuntimeError, match="await"):
            pool.register_into_sync(ToolRegistry())
        assert (await registry.call("s_echo", {"text": "hi"})).content == "hi"


def test_langchain_invoke_of_a_remote_tool() -> None:
    registry = ToolRegistry()
    with pool_on_thread(registry):
        tools = {t.name: t for t in to_langchain_tools(registry)}
        assert tools["s_echo"].invoke({"text": "via langchain"}) == "via langchain"
        assert "cannot do it: nope" in tools["s_fail"].invoke({"reason": "nope"})
    with McpClientPool(CONFIG, grace=0.5) as pool:
        local = ToolRegistry()
        pool.register_into_sync(local)
        tools = {t.name: t for t in to_langchain_tools(local)}
        assert tools["s_add"].invoke({"a": 20, "b": 22}) == "42"


@pytest.mark.anyio
async def test_forwarded_http_calls_keep_their_own_context_headers(
    http_config: dict[str, Any],
) -> None:
    config = http_config
    async with McpClientPool({"h": config}) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)

        async def second_loop() -> dict[str, Any]:
            seen: dict[str, Any] = {}

            async def one(tenant: str) -> None:
                result = await registry.call("h_whoami", {}, ToolContext(values={"tenant": tenant}))
                seen[tenant] = result.structured["tenant_header"]

            async with anyio.create_task_group() as tg:
                for i in range(8):
                    tg.start_soon(one, f"t{i}")
            return seen

        seen = await anyio.to_thread.run_sync(anyio.run, second_loop)
    assert seen == {f"t{i}": f"t{i}" for i in range(8)}
