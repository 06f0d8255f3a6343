"""The pool against real servers: both protocol generations, pagination, results, concurrency."""

from __future__ import annotations

import time

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.adapters.mcp_client.conftest import descendants, stdio
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, RegistrationError
from toolkit.registry import ToolRegistry

pytestmark = pytest.mark.anyio

CONFIG = {
    "modern": stdio(context_meta={"tenant": "x-tenant"}),
    "legacy": stdio("echo_server.py", "--legacy"),
    "paged": stdio("paged_server.py"),
}


async def test_modern_and_legacy_servers_both_work_and_connect_lazily() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        assert [s.state for s in pool.statuses()] == ["idle", "idle", "idle"]
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern", "legacy"])
        assert pool.status("modern").protocol_version == "2026-07-28"
        assert pool.status("legacy").protocol_version == "2025-11-25"
        assert pool.status("paged").state == "idle"
        for name in ("modern_echo", "legacy_echo"):
            result = await registry.call(name, {"text": "hi"})
            assert (result.content, result.is_error) == ("hi", False)
        assert "modern=ready" in repr(pool)
        assert "<table " in pool._repr_html_() and "text-align:left" in pool._repr_html_()


async def test_pagination_is_followed_to_the_end_in_server_order() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        tools = await pool.tools("paged")
        assert [t.name for t in tools] == [f"paged_tool_{i}" for i in range(6)]
        assert tools[5].spec.source == "mcp://paged/tool_5"
        result = await pool.call("paged", "tool_5", {"x": 7})
        assert result.content == "tool_5:7"


async def test_invalid_arguments_are_caught_locally_without_a_round_trip() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"])
        # With the server gone, only a local check can answer INVALID_PARAMS.
        await pool.connection("modern").aclose()
        missing = await registry.call("modern_add", {"a": 1})
        wrong = await registry.call("modern_add", {"a": 1, "b": "two"})
        unknown = await registry.call("modern_add", {"a": 1, "b": 2, "c": 3})
    assert missing.code == wrong.code == unknown.code == ErrorCode.INVALID_PARAMS
    assert "`b`" in missing.content and "`b`" in wrong.content
    assert "`c`" in unknown.content


async def test_results_keep_structure_images_and_server_errors() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"])
        structured = await registry.call("modern_add", {"a": 2, "b": 3})
        picture = await registry.call("modern_picture", {})
        failed = await registry.call("modern_fail", {"reason": "bin 404 is empty"})
    assert structured.structured == {"result": 5}
    assert picture.blocks[0].type == "image" and picture.blocks[0].mime_type == "image/png"
    assert failed.code == ErrorCode.EXECUTION_ERROR and "bin 404 is empty" in failed.content


async def test_200_concurrent_calls_on_one_connection_are_not_mixed_up() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"])
        calls = [("modern_echo", {"text": f"msg-{i}"}, f"c{i}") for i in range(200)]
        results = await registry.call_many(calls)
        assert pool.connection("modern").connects == 1
    assert [r.content for r in results] == [f"msg-{i}" for i in range(200)]


async def test_20_concurrent_100ms_calls_share_one_connection() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        tool = (await pool.tools("modern", prefix=""))[2]
        assert tool.name == "slow"
        await tool.call({"ms": 1}, ToolContext())
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(tool.call, {"ms": 100, "tag": str(i)}, ToolContext())
        # Sequential would take 2 s; a generous bound still proves they overlap.
        assert time.perf_counter() - started < 1.5


async def test_list_changed_refreshes_the_registry_for_both_generations() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        changes: list[int] = []
        registry.on_change(lambda: changes.append(len(registry)))
        await pool.register_into(registry, ["modern", "legacy"])
        await registry.call("modern_grow", {"name": "fresh"})
        await registry.call("legacy_grow", {"name": "fresh"})
        with anyio.fail_after(10):
            while not {"modern_fresh", "legacy_fresh"} <= set(registry.names()):
                await anyio.sleep(0.05)
        assert (await registry.call("legacy_fresh", {})).content == "fresh"


async def test_name_collisions_name_both_sources_and_prefixes_resolve_them() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"], prefix="")
        with pytest.raises(RegistrationError) as caught:
            await pool.register_into(registry, ["legacy"], prefix="")
        assert "mcp://modern/echo" in str(caught.value)
        assert "mcp://legacy/echo" in str(caught.value)
        assert "prefix" in str(caught.value)
        with pytest.raises(RegistrationError, match="64"):
            await pool.register_into(ToolRegistry(), ["legacy"], prefix="p" * 62)


async def test_context_values_reach_the_server_only_through_the_allowlist() -> None:
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry, ["modern"])
        context = ToolContext(values={"tenant": "acme", "password": "hunter22"})
        result = await registry.call("modern_whoami", {}, context)
    assert result.structured == {"meta": {"x-tenant": "acme"}, "tenant_header": None}


async def test_stdio_servers_get_a_minimal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARENT_SECRET", "do-not-leak")
    monkeypatch.setenv("GIVEN_TOKEN", "given-value")
    config = {"s": stdio(env={"TOKEN": "${GIVEN_TOKEN}"})}
    async with McpClientPool(config, grace=0.5) as pool:
        leaked = await pool.call("s", "env", {"name": "PARENT_SECRET"})
        given = await pool.call("s", "env", {"name": "TOKEN"})
    assert (leaked.content, given.content) == ("<unset>", "given-value")


async def test_closing_the_pool_leaves_no_process_even_with_grandchildren() -> None:
    before = descendants()
    config = {"s": stdio(), "stubborn": stdio("echo_server.py", "--fault", "stubborn")}
    async with McpClientPool(config, grace=0.3) as pool:
        grandchild = (await pool.call("s", "spawn_child", {})).structured["result"]
        assert grandchild in descendants()
        with anyio.move_on_after(1):
            await pool.connect("stubborn")  # hangs: never answers
    assert descendants() <= before
