"""The table of sources a command line names: checked without connecting, opened into one
registry through ``add_toolset`` (the TARGET's), against the orders service and the echo MCP
server on 127.0.0.1 / stdio."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters.sources import SOURCES, Sources, check_sources, open_sources, registry_for
from tests.support.orders_service import Recorder, example_config, serving_orders
from toolkit import RegistrationError, ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
ECHO = ROOT / "tests/support/mcp_servers/echo_server.py"
TARGET = "tests.toolkit.tools_for_tests"


@pytest.fixture(scope="module")
def orders() -> Iterator[tuple[str, Recorder]]:
    with serving_orders() as served:
        yield served


def write(path: Path, data: dict[str, Any]) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def echo_server(**config: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(ECHO)], **config}


@mcp_tool
def echo_echo(text: str) -> str:
    """A local tool holding the name the gateway gives the remote echo.

    Args:
        text: Anything.
    """
    return "local"


def test_every_row_names_what_it_reads_and_how_it_is_checked() -> None:
    assert [row.name for row in SOURCES] == [
        "TARGET",
        "--http-tools",
        "--config httpTools",
        "--config mcpServers",
    ]
    assert all(row.reads and callable(row.check) for row in SOURCES)
    assert [row.name for row in SOURCES if row.open is None] == ["TARGET"]
    assert [row.name for row in SOURCES if row.on_clash == "skip"] == ["--config mcpServers"]
    assert not Sources() and Sources(config="mcp.json")


def test_checking_reads_every_file_without_connecting(tmp_path: Path) -> None:
    # A server whose command does not exist: checking reads the config, it starts nothing.
    config = write(
        tmp_path / "mcp.json",
        {"mcpServers": {"gone": {"command": str(tmp_path / "no-such-program")}}},
    )
    check_sources(Sources(target=TARGET, config=config))
    bad_server = write(tmp_path / "bad.json", {"mcpServers": {"x": {"command": 3}}})
    with pytest.raises(ValueError, match="'x'"):
        check_sources(Sources(config=bad_server))
    bad_http = write(tmp_path / "http.json", {"httpTools": {"t": {"endpoint": "nowhere"}}})
    with pytest.raises(ValueError, match=r"t\.endpoint"):
        check_sources(Sources(http_tools=bad_http))
    with pytest.raises(RegistrationError):
        check_sources(Sources(target="tests.no_such_module_here"))


def test_a_config_of_http_tools_alone_needs_no_servers(
    tmp_path: Path, orders: tuple[str, Recorder]
) -> None:
    config = write(tmp_path / "c.json", example_config(orders[0]))
    check_sources(Sources(config=config))  # no 'mcpServers' and none asked for


async def test_every_source_joins_the_targets_registry_and_closes_after(
    tmp_path: Path, orders: tuple[str, Recorder]
) -> None:
    http_file = write(tmp_path / "http.json", example_config(orders[0]))
    other = example_config(orders[0])
    other["httpTools"] = {"order_again": other["httpTools"]["get_order"]}
    other["mcpServers"] = {"echo": echo_server()}
    config = write(tmp_path / "mcp.json", other)
    sources = Sources(target=TARGET, http_tools=http_file, config=config)
    registry = registry_for(sources)
    assert "add" in registry  # the TARGET's own tools
    async with open_sources(registry, sources) as opened:
        assert [source.source.name for source in opened] == [
            "--http-tools",
            "--config httpTools",
            "--config mcpServers",
        ]
        assert opened[0].names == ["get_order"] and opened[1].names == ["order_again"]
        assert "echo_echo" in opened[2].names
        assert str(opened[0]) == f"1 tool from --http-tools {http_file}"
        order = {"userId": "u1", "orderId": "o5", "Authorization": "t"}
        assert "o5" in str((await registry.call("order_again", order)).content)
        assert (await registry.call("echo_echo", {"text": "hi"})).content == "hi"
    after = await registry.call("echo_echo", {"text": "hi"})
    assert after.is_error  # the pool closed with the block


async def test_remote_servers_skip_a_taken_name_and_follow_list_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = write(tmp_path / "mcp.json", {"mcpServers": {"echo": echo_server()}})
    registry = ToolRegistry()
    registry.register(echo_echo)
    with caplog.at_level(logging.WARNING, logger="toolkit.registry"):
        async with open_sources(registry, Sources(config=config)) as [remote]:
            assert "echo_echo" not in remote.names and "echo_add" in remote.names
            assert (await registry.call("echo_echo", {"text": "x"})).content == "local"
            await registry.call("echo_grow", {"name": "sprout"})
            with anyio.fail_after(15):
                while "echo_sprout" not in registry:
                    await anyio.sleep(0.05)
            assert (await registry.call("echo_sprout", {})).content == "sprout"
    warning = next(r.getMessage() for r in caplog.records if "echo_echo" in r.getMessage())
    assert "already taken" in warning and "test_table" in warning  # the tool, its holder
    assert "give MCP server 'echo' a 'prefix' in its config" in warning  # and the fix


async def test_a_remote_server_whose_every_tool_clashes_is_refused(tmp_path: Path) -> None:
    # The rule is per server, as the gateway's always was: server "b" would fit, but every
    # tool of server "a" clashes, which is a config mistake (the same server twice, no prefix).
    only_a = write(tmp_path / "a.json", {"mcpServers": {"a": echo_server(prefix="")}})
    first = ToolRegistry()
    async with open_sources(first, Sources(config=only_a)) as [remote]:
        registry = ToolRegistry()
        for name in remote.names:
            registry.add(first.get(name))
    both = {"a": echo_server(prefix=""), "b": echo_server(prefix="b_")}
    config = write(tmp_path / "both.json", {"mcpServers": both})
    with pytest.raises(RegistrationError) as caught:
        async with open_sources(registry, Sources(config=config)):
            pass
    assert "of toolset MCP server 'a'" in str(caught.value)
    assert "give MCP server 'a' a 'prefix' in its config" in str(caught.value)


async def test_http_tools_refuse_a_taken_name(tmp_path: Path, orders: tuple[str, Recorder]) -> None:
    http_file = write(tmp_path / "http.json", example_config(orders[0]))
    registry = ToolRegistry()
    async with open_sources(registry, Sources(http_tools=http_file)):
        with pytest.raises(RegistrationError, match=r"'get_order'.*already taken"):
            async with open_sources(registry, Sources(http_tools=http_file)):
                pass
