"""Resource, prompt and completion functions run like tools: a sync completer off the event
loop within a deadline, its candidates read only as far as an answer holds, and an OS error
told to the client without the server's local paths. Read by the SDK's client."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server
from toolkit import ToolRegistry, mcp_prompt, mcp_resource

pytestmark = pytest.mark.anyio

TEMPLATE = types.ResourceTemplateReference(uri="skus://{sku}")


def _skus(read: list[int], threads: list[str], release: threading.Event) -> ToolRegistry:
    def every_sku(value: str, context: Mapping[str, str]) -> Iterator[str]:
        threads.append(threading.current_thread().name)
        if value == "slow":
            release.wait(10)
        for n in range(1_000_000):
            read[0] += 1
            yield f"{value}{n}"

    @mcp_resource("skus://{sku}", completions={"sku": every_sku}, timeout=0.3)
    def sku(sku: str) -> str:
        """One article."""
        return sku

    registry = ToolRegistry()
    registry.resources.register(sku)
    return registry


async def test_a_sync_completer_runs_off_the_loop_and_is_read_only_as_far_as_sent() -> None:
    read, threads, release = [0], list[str](), threading.Event()
    async with Client(build_server(_skus(read, threads, release))) as client:
        found = await client.complete(TEMPLATE, {"name": "sku", "value": "A-"})
    assert found.completion.values == [f"A-{n}" for n in range(100)]
    assert read[0] <= 101  # a million were offered; list(found) read them all
    assert threads and threading.main_thread().name not in threads
    assert all(name == "toolkit-call" for name in threads)


async def test_a_completer_past_its_deadline_is_a_timeout_and_the_server_goes_on() -> None:
    read, threads, release = [0], list[str](), threading.Event()
    try:
        async with Client(build_server(_skus(read, threads, release))) as client:
            with pytest.raises(MCPError) as late:
                await client.complete(TEMPLATE, {"name": "sku", "value": "slow"})
            after = await client.complete(TEMPLATE, {"name": "sku", "value": "B"})
    finally:
        release.set()
    assert (late.value.data or {}).get("code") == "TIMEOUT"
    assert "took longer than 0.3 seconds" in late.value.message
    assert after.completion.values[:2] == ["B0", "B1"]


def _files(folder: Path) -> ToolRegistry:
    @mcp_resource("docs://{name}")
    def doc(name: str) -> str:
        """One document of the folder."""
        return (folder / name).read_text()

    @mcp_prompt
    def from_file(name: str) -> str:
        """A prompt kept in a file.

        Args:
            name: The file.
        """
        return (folder / "prompts" / name).read_text()

    registry = ToolRegistry()
    registry.resources.register(doc)
    registry.prompts.register(from_file)
    return registry


async def test_os_errors_reach_the_client_without_local_paths(tmp_path: Path) -> None:
    folder = tmp_path / "srv-docs"
    (folder / "guides").mkdir(parents=True)
    failures: list[MCPError] = []
    async with Client(build_server(_files(folder))) as client:
        for read in (
            lambda: client.read_resource("docs://guides"),
            lambda: client.read_resource("docs://missing.txt"),
            lambda: client.get_prompt("from_file", {"name": "gone.txt"}),
        ):
            with pytest.raises(MCPError) as failed:
                await read()
            failures.append(failed.value)
    messages = [f.message for f in failures]
    assert "IsADirectoryError" in messages[0] and "Is a directory" in messages[0]
    assert "FileNotFoundError" in messages[1] and "No such file" in messages[1]
    assert "FileNotFoundError" in messages[2]
    for message in messages:
        assert str(tmp_path) not in message and "srv-docs" not in message
