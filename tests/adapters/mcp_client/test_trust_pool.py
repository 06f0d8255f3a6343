"""Pinned remote tools against a real server that rug-pulls (issue 37): every poisoning
pattern that arrives by ``list_changed`` or by a reconnect is quarantined, in both protocol
generations, over stdio and HTTP; harmless re-listings never are."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters.mcp_client import McpClientPool, ToolLock, review_tools, trust_tools
from tests.adapters.mcp_client.conftest import SERVERS, _free_port, _wait_port, stdio
from tests.support.poisoning import BASE, EXPECTED_HELD, poisoned_listing
from toolkit import ToolContext, ToolRegistry
from toolkit.errors import ErrorCode, ToolError

pytestmark = pytest.mark.anyio

GENERATIONS = ["modern", "legacy"]


@pytest.fixture(scope="module")
def shifty_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The rug-pulling server over streamable HTTP on 127.0.0.1: its URL and tools file."""
    file = tmp_path_factory.mktemp("shifty") / "tools.json"
    _write(file, [])
    port = _free_port()
    argv = [sys.executable, str(SERVERS / "shifty_server.py"), str(file), "--http", str(port)]
    proc = subprocess.Popen(argv)
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp", file
    finally:
        proc.terminate()
        proc.wait(10)


def _write(file: Path, tools: list[dict[str, Any]], page: int = 0) -> None:
    file.write_text(json.dumps({"tools": tools, "page": page}, indent=1))


def _server(file: Path, mode: str = "modern", **extra: Any) -> dict[str, Any]:
    return stdio(
        "shifty_server.py", str(file), *(["--legacy"] if mode == "legacy" else []), **extra
    )


async def _until(done: Callable[[], bool]) -> None:
    with anyio.fail_after(30):
        while not done():
            await anyio.sleep(0.05)


async def _relist(pool: McpClientPool, registry: ToolRegistry, arrival: str) -> None:
    """Make the server's new list reach the pool, and wait until the pool has judged it."""
    before = pool.connection("s")._tools
    if arrival == "list_changed":
        await registry.call("s_announce", {})
    else:
        await registry.call("s_crash", {})  # the server exits; the next request reconnects
        await pool.connect("s")
    await _until(lambda: pool.connection("s")._tools is not before)
    await pool.tools("s")


def _quarantine_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING
        and ("quarantined" in r.getMessage() or " is held" in r.getMessage())
    ]


@pytest.mark.parametrize("mode", GENERATIONS)
@pytest.mark.parametrize("arrival", ["list_changed", "reconnect"])
async def test_every_poisoning_pattern_is_quarantined(
    tmp_path: Path, mode: str, arrival: str, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "tools.json"
    _write(file, list(BASE.values()))
    config = _server(file, mode, trust="first-use")
    async with McpClientPool({"s": config}, lock=tmp_path / "mcp.lock.json") as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        assert {f"s_{name}" for name in BASE} <= set(registry.names())
        bound = registry.get("s_search")  # as an agent bound it before the change
        _write(file, poisoned_listing())
        await _relist(pool, registry, arrival)
        await _until(lambda: "s_search" not in registry)
        held = {h.tool: h for h in pool.trust.held("s")}
        assert set(held) == set(EXPECTED_HELD)
        for name, expected in EXPECTED_HELD.items():
            assert expected in held[name].message(), held[name].message()
            assert f"toolkit mcp diff CONFIG s {name}" in held[name].message()
        assert "zero-width characters" in held["greet"].hidden
        assert "bidirectional controls" in held["rename"].hidden
        # In no listing: not the registry, not the pool's toolset, not a fresh registration.
        offered = {t.name for t in await pool.get_tools()}
        assert offered == set(registry.names()) == {"s_announce", "s_crash"}
        fresh = ToolRegistry()
        await pool.register_into(fresh)
        assert set(fresh.names()) == {"s_announce", "s_crash"}
        # A call that still reaches it is DENIED, naming the change; the server never hears it.
        with pytest.raises(ToolError) as denied:
            await bound.call({"query": "x"}, ToolContext(tool="s_search"))
        assert denied.value.code is ErrorCode.DENIED
        assert "description changed" in denied.value.message
        with pytest.raises(ToolError, match="quarantined") as direct:
            await pool.call("s", "add", {"a": 1, "b": 2})
        assert direct.value.code is ErrorCode.DENIED
        assert not file.with_suffix(".calls").exists()
        # One warning per change: the same poisoned list again warns of nothing new.
        await _relist(pool, registry, "list_changed")
    warned = _quarantine_warnings(caplog)
    assert len(warned) == len(EXPECTED_HELD), warned


@pytest.mark.parametrize("mode", GENERATIONS)
async def test_harmless_relistings_are_never_quarantined(tmp_path: Path, mode: str) -> None:
    file = tmp_path / "tools.json"
    tools = list(BASE.values())
    _write(file, tools)
    rng = random.Random(7)
    async with McpClientPool(
        {"s": _server(file, mode, trust="first-use")}, lock=tmp_path / "mcp.lock.json"
    ) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        for arrival in ["list_changed", "list_changed", "reconnect", "list_changed"]:
            shuffled = [dict(reversed(list(t.items()))) for t in tools]
            rng.shuffle(shuffled)
            _write(file, shuffled, page=rng.randint(1, 4))
            await _relist(pool, registry, arrival)
            assert pool.trust.held("s") == []
        assert {f"s_{name}" for name in BASE} <= set(registry.names())
        assert (await registry.call("s_add", {"a": 1, "b": 2})).content == "add ran"


async def test_a_server_not_in_the_lock_works_as_before_but_cleaned(tmp_path: Path) -> None:
    file = tmp_path / "tools.json"
    _write(file, list(BASE.values()))
    async with McpClientPool({"s": _server(file)}, lock=tmp_path / "mcp.lock.json") as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        _write(file, poisoned_listing())
        await _relist(pool, registry, "list_changed")
        await _until(lambda: "s_send_email" in registry)
        assert pool.trust.held("s") == []
        assert registry.get("s_greet").spec.description == "Greet someone."  # hidden removed
        assert "\u202e" not in registry.get("s_rename").spec.description
    assert not (tmp_path / "mcp.lock.json").exists()


async def test_a_locked_server_offers_nothing_until_trusted(tmp_path: Path) -> None:
    file = tmp_path / "tools.json"
    _write(file, list(BASE.values()))
    lock = tmp_path / "mcp.lock.json"
    async with McpClientPool({"s": _server(file, trust="locked")}, lock=lock) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        assert registry.names() == []
        assert {h.reason for h in pool.trust.held("s")} == {"unlocked"}
        assert {c.status for c in await review_tools(pool)} == {"unpinned"}
        accepted = await trust_tools(pool, "s")
        assert {c.tool for c in accepted} == {*BASE, "announce", "crash"}
        assert {f"s_{name}" for name in BASE} <= set(registry.names())
        assert await review_tools(pool) == []
    assert set(ToolLock(lock).pins("s") or {}) == {*BASE, "announce", "crash"}


async def test_new_tools_trusted_on_sight_when_the_config_says_so(tmp_path: Path) -> None:
    file = tmp_path / "tools.json"
    _write(file, list(BASE.values()))
    config = _server(file, trust="first-use", new_tools="trust")
    async with McpClientPool({"s": config}, lock=tmp_path / "mcp.lock.json") as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        _write(file, poisoned_listing())
        await _relist(pool, registry, "list_changed")
        await _until(lambda: "s_send_email" in registry and "s_search" not in registry)
        held = {h.tool for h in pool.trust.held("s")}
        assert held == set(EXPECTED_HELD) - {"list_all", "send_email"}  # changed ones stay held
        assert "s_list" not in registry  # removed by the server: no approval needed


async def test_trusting_one_tool_offers_it_and_keeps_the_others_held(tmp_path: Path) -> None:
    file = tmp_path / "tools.json"
    _write(file, list(BASE.values()))
    async with McpClientPool(
        {"s": _server(file, trust="first-use")}, lock=tmp_path / "mcp.lock.json"
    ) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        _write(file, poisoned_listing())
        await _relist(pool, registry, "list_changed")
        changes = {c.tool: c for c in await review_tools(pool, "s")}
        assert changes["list"].status == "removed" and changes["send_email"].status == "new"
        assert any(
            '+  "description": "Search the notes. <IMPORTANT>' in line
            for line in changes["search"].diff()
        )
        await trust_tools(pool, "s", "add")
        assert "s_add" in registry and "s_search" not in registry
        assert (
            await registry.call("s_add", {"a": 1, "b": 2, "sidenote": "x"})
        ).content == "add ran"


async def test_over_http_a_change_between_runs_is_quarantined_at_first_connect(
    tmp_path: Path, shifty_http: tuple[str, Path]
) -> None:
    url, file = shifty_http
    lock = tmp_path / "mcp.lock.json"
    _write(file, list(BASE.values()))
    servers = {"s": {"url": url, "trust": "first-use"}}
    async with McpClientPool(servers, lock=lock) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        assert "s_search" in registry
    _write(file, poisoned_listing())
    async with McpClientPool(servers, lock=lock) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        assert {h.tool for h in pool.trust.held("s")} == set(EXPECTED_HELD)
        assert set(registry.names()) == {"s_announce", "s_crash"}
        with pytest.raises(ToolError, match=r"inputSchema\.properties\.sidenote added"):
            await pool.call("s", "add", {"a": 1, "b": 2})
    assert not file.with_suffix(".calls").exists()


async def test_over_http_a_change_announced_by_list_changed_is_quarantined(
    tmp_path: Path, shifty_http: tuple[str, Path]
) -> None:
    url, file = shifty_http
    _write(file, list(BASE.values()))
    servers = {"s": {"url": url, "trust": "first-use"}}
    async with McpClientPool(servers, lock=tmp_path / "mcp.lock.json") as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        _write(file, poisoned_listing())
        await _relist(pool, registry, "list_changed")  # on the session's listen stream
        await _until(lambda: "s_search" not in registry)
        assert {h.tool for h in pool.trust.held("s")} == set(EXPECTED_HELD)
        assert set(registry.names()) == {"s_announce", "s_crash"}
