"""A server's tool-list change with bad or clashing names cannot take the pool down."""

from __future__ import annotations

import logging
from pathlib import Path

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.hardening.conftest import misbehaving
from toolkit import ToolRegistry, mcp_tool

GOOD = {"m_fail", "m_fail_idempotent", "m_die", "m_die_readonly", "m_count", "m_announce"}


@mcp_tool(name="m_fresh")
def local_fresh() -> str:
    """A local tool whose name the server's new tool will clash with."""
    return "local"


async def _wait_for(registry: ToolRegistry, name: str) -> None:
    with anyio.fail_after(10):
        while name not in registry.names():
            await anyio.sleep(0.02)


def test_bad_names_at_first_connect_skip_only_those_tools(
    log: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> set[str]:
        async with McpClientPool(misbehaving(log, "bad-names"), grace=0.5) as pool:
            registry = ToolRegistry()
            with caplog.at_level(logging.WARNING, "adapters.mcp_client"):
                await pool.register_into(registry)
            assert (await registry.call("m_count", {})).content == "count ok"
            return set(registry.names())

    names = anyio.run(main)
    assert GOOD | {"m_fresh"} <= names
    assert not any(" " in n or len(n) > 64 for n in names)
    assert "'bad name!'" in caplog.text


def test_list_change_with_bad_and_clashing_names_keeps_the_good_tools(
    log: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> tuple[set[str], str, str]:
        async with McpClientPool(misbehaving(log), grace=0.5) as pool:
            registry = ToolRegistry()
            registry.register(local_fresh)
            await pool.register_into(registry)
            with caplog.at_level(logging.WARNING, "adapters.mcp_client"):
                await registry.call("m_announce", {})
                with anyio.fail_after(10):
                    while "skipped tool 'm_fresh'" not in caplog.text:
                        await anyio.sleep(0.02)
            count = (await registry.call("m_count", {})).content
            fresh = (await registry.call("m_fresh", {})).content
            return set(registry.names()), str(count), str(fresh)

    names, count, fresh = anyio.run(main)
    assert GOOD <= names
    assert count == "count ok"
    assert fresh == "local"  # the local tool kept its name; the clashing remote one was skipped
    assert "'bad name!'" in caplog.text


def test_leaving_the_pool_while_a_refresh_is_pending_does_not_raise(log: Path) -> None:
    async def main() -> None:
        async with McpClientPool(misbehaving(log), grace=0.5) as pool:
            registry = ToolRegistry()
            await pool.register_into(registry)
            await registry.call("m_announce", {})
        # the block ended right after the announcement, with the refresh in flight

    for _ in range(5):
        anyio.run(main)


@mcp_tool(name="m_count")
def local_count() -> str:
    """A local tool whose name one of the server's tools clashes with from the start."""
    return "local count"


def test_a_clash_at_first_registration_skips_only_that_tool(
    log: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> tuple[set[str], str]:
        async with McpClientPool(misbehaving(log), grace=0.5) as pool:
            registry = ToolRegistry()
            registry.register(local_count)
            with caplog.at_level(logging.WARNING, "adapters.mcp_client"):
                await pool.register_into(registry)
            mine = (await registry.call("m_count", {})).content
            return set(registry.names()), str(mine)

    names, mine = anyio.run(main)
    assert GOOD <= names  # the server's other tools are there
    assert mine == "local count"  # the local tool was kept, not replaced
    assert "skipped tool 'm_count' of MCP server 'm'" in caplog.text
    assert "'prefix'" in caplog.text and "exclude" in caplog.text
