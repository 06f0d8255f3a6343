"""A remote server's resources and prompts, copied into a registry by ``register_catalog``,
follow its ``list_changed`` in both protocol generations: entries added and removed in place,
other servers' and local entries untouched, a failed refresh keeping the old copy, and a flood
of announcements coalesced. The server is the SDK's MCPServer, a subprocess over stdio."""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio
import pytest

from adapters.mcp_client import McpClientPool, register_catalog
from adapters.mcp_client._follow import Coalesced
from tests.adapters.mcp_client.conftest import stdio
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio

GENERATIONS = {"modern": (), "legacy": ("--legacy",)}


def _servers(*args: str) -> dict[str, object]:
    # Different environments: two connections, two processes.
    return {
        "cat": stdio("catalog_server.py", *args, env={"WHO": "cat"}),
        "other": stdio("catalog_server.py", *args, env={"WHO": "other"}),
    }


class Changes:
    """Wakes a waiter on every change of the registry's resources or prompts."""

    def __init__(self, registry: ToolRegistry) -> None:
        self.count = 0
        self._news = anyio.Event()
        registry.resources.on_change(self._changed)
        registry.prompts.on_change(self._changed)

    def _changed(self) -> None:
        self.count += 1
        self._news.set()
        self._news = anyio.Event()

    async def until(self, done: Callable[[], bool]) -> None:
        with anyio.fail_after(10):
            while not done():
                await self._news.wait()


class Warnings(logging.Handler):
    """Collects the gateway's warnings and wakes a waiter on each."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []
        self._news = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())
        self._news.set()
        self._news = anyio.Event()

    async def until(self, count: int) -> None:
        with anyio.fail_after(10):
            while len(self.messages) < count:
                await self._news.wait()


def _local_note() -> str:
    return "local"


def _local_prompt(topic: str) -> str:
    return f"about {topic}"


async def _copy(pool: McpClientPool, registry: ToolRegistry) -> None:
    await pool.register_into(registry)
    for server in pool.servers:
        await register_catalog(pool, registry, server, pool.config(server).tool_prefix)


@pytest.mark.parametrize("generation", list(GENERATIONS))
async def test_the_copy_follows_added_and_removed_resources_and_prompts(generation: str) -> None:
    async with McpClientPool(_servers(*GENERATIONS[generation]), grace=0.5) as pool:
        registry = ToolRegistry()
        local = registry.resources.register(_local_note, "local://note", name="local")
        local_prompt = registry.prompts.register(_local_prompt, name="local_outline")
        await _copy(pool, registry)
        others = registry.resources.get("other+notes://first"), registry.prompts.get("other_greet")
        changes = Changes(registry)
        await registry.call("cat_add_note", {"name": "second"})
        await changes.until(lambda: registry.resources.get("cat+notes://second") is not None)
        read = await registry.resources.read("cat+notes://second")
        await registry.call("cat_add_prompt", {"name": "outline"})
        await changes.until(lambda: registry.prompts.get("cat_outline") is not None)
        await registry.call("cat_drop_note", {"name": "first"})
        await changes.until(lambda: registry.resources.get("cat+notes://first") is None)
        got = await registry.prompts.render("cat_outline", {"topic": "maps"})
    assert [c.text for c in read] == ["note second"]
    assert "outline: maps" in str(got)
    assert [r.uri for r in registry.resources.resources()] == [
        "local://note",
        "other+notes://first",
        "cat+notes://second",
    ]
    assert registry.resources.get("local://note") is local
    assert registry.prompts.get("local_outline") is local_prompt
    assert (registry.resources.get("other+notes://first"), registry.prompts.get("other_greet")) == (
        others
    )


async def test_a_local_entry_under_a_remote_name_stays_and_is_warned_of_once() -> None:
    warnings = Warnings()
    logger = logging.getLogger("toolkit.mcp")
    logger.addHandler(warnings)
    try:
        async with McpClientPool(_servers(), grace=0.5) as pool:
            registry = ToolRegistry()
            local = registry.resources.register(_local_note, "cat+notes://second", name="mine")
            await _copy(pool, registry)
            changes = Changes(registry)
            await registry.call("cat_add_note", {"name": "second"})
            await warnings.until(1)
            await registry.call("cat_add_note", {"name": "third"})
            await changes.until(lambda: registry.resources.get("cat+notes://third") is not None)
            read = await registry.resources.read("cat+notes://second")
    finally:
        logger.removeHandler(warnings)
    assert registry.resources.get("cat+notes://second") is local
    assert [c.text for c in read] == ["local"]
    [warning] = warnings.messages  # the second refresh met the same clash and said nothing
    assert "resource 'cat+notes://second' not re-served" in warning
    assert "already served" in warning


@pytest.mark.parametrize("generation", list(GENERATIONS))
async def test_a_failed_refresh_keeps_the_old_copy_with_one_warning(generation: str) -> None:
    warnings = Warnings()
    logger = logging.getLogger("toolkit.mcp")
    logger.addHandler(warnings)
    try:
        async with McpClientPool(_servers(*GENERATIONS[generation]), grace=0.5) as pool:
            registry = ToolRegistry()
            await _copy(pool, registry)
            before = registry.resources.resources()
            await registry.call("cat_break_listing", {})
            await warnings.until(1)
            after = registry.resources.resources()
            # The pool lives on: the prompts still follow, tools still answer.
            changes = Changes(registry)
            await registry.call("cat_add_prompt", {"name": "outline"})
            await changes.until(lambda: registry.prompts.get("cat_outline") is not None)
            listed = (await registry.call("cat_listings", {})).content
    finally:
        logger.removeHandler(warnings)
    assert after == before
    assert [str(r.uri) for r in after] == ["cat+notes://first", "other+notes://first"]
    [warning] = warnings.messages
    assert "refreshing the resources of MCP server 'cat' failed; the old ones stay" in warning
    assert "resource index is being rebuilt" in warning or "cat" in warning
    assert listed == "2"


@pytest.mark.parametrize("generation", list(GENERATIONS))
async def test_after_a_reconnect_the_copy_is_listed_again(generation: str) -> None:
    async with McpClientPool(_servers(*GENERATIONS[generation]), grace=0.5) as pool:
        registry = ToolRegistry()
        await _copy(pool, registry)
        changes = Changes(registry)
        await registry.call("cat_add_note", {"name": "second"})
        await changes.until(lambda: registry.resources.get("cat+notes://second") is not None)
        crashed = await registry.call("cat_crash", {})
        # The next call reconnects to a fresh server, which never had the note.
        await registry.call("cat_listings", {})
        await changes.until(lambda: registry.resources.get("cat+notes://second") is None)
        connects = pool.connection("cat").connects
    assert crashed.is_error
    assert connects == 2
    assert [r.uri for r in registry.resources.resources()] == [
        "cat+notes://first",
        "other+notes://first",
    ]


@pytest.mark.parametrize("generation", list(GENERATIONS))
async def test_a_flood_of_announcements_is_coalesced(generation: str) -> None:
    async with McpClientPool(_servers(*GENERATIONS[generation]), grace=0.5) as pool:
        registry = ToolRegistry()
        await _copy(pool, registry)
        changes = Changes(registry)
        await registry.call("cat_flood", {"count": 300})
        await registry.call("cat_add_note", {"name": "after"})
        await changes.until(lambda: registry.resources.get("cat+notes://after") is not None)
        listed = int((await registry.call("cat_listings", {})).content)
        echo = await registry.call("cat_listings", {})
    assert listed < 50  # 301 announcements, a few refreshes (at most 10 a second)
    assert not echo.is_error
    # Refreshes that found nothing new changed nothing; entries that did not change stay.
    assert changes.count == 1


@pytest.mark.parametrize("min_gap", [0.0, 0.1])  # 0: the run took longer than the gap
async def test_pokes_during_a_run_make_exactly_one_more_run(min_gap: float) -> None:
    runs: list[int] = []
    started, release = anyio.Event(), anyio.Event()

    async def job() -> None:
        runs.append(len(runs))
        started.set()
        if len(runs) == 1:
            await release.wait()

    coalesced = Coalesced(job, min_gap=min_gap)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            coalesced.poke(group)
            coalesced.poke(group)  # before the run starts: the run will see it anyway
            await started.wait()
            for _ in range(1000):
                coalesced.poke(group)
            release.set()
    assert runs == [0, 1]
