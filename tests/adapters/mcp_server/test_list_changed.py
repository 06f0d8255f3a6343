"""Resources and prompts added, removed or replaced in a served registry reach connected
clients as ``list_changed`` (one per list per burst), in both protocol generations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest
from mcp import Client

from adapters.mcp_server import build_server, http_app
from tests.support import served_registry
from tests.support.list_changes import Heard, listening
from toolkit import ToolRegistry

pytestmark = pytest.mark.anyio


def _note(text: str) -> Callable[[], str]:
    def note() -> str:
        return text

    return note


def _prompt(text: str) -> Callable[[str], str]:
    def prompt(topic: str) -> str:
        return f"{text}: {topic}"

    return prompt


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_burst_of_changes_is_announced_once_per_list(mode: str) -> None:
    registry = ToolRegistry()
    registry.register(served_registry.echo)
    heard = Heard()
    async with Client(build_server(registry), mode=mode, message_handler=heard) as client:
        capabilities = client.server_capabilities
        assert capabilities.resources is not None and capabilities.resources.list_changed
        assert capabilities.prompts is not None and capabilities.prompts.list_changed
        async with listening(client, mode):
            for i in range(3):
                registry.resources.register(_note(f"note {i}"), f"notes://{i}", name=f"n{i}")
            registry.prompts.register(_prompt("a"), name="outline")
            registry.prompts.register(_prompt("b"), name="summary")
            await heard.until("resources")
            await heard.until("prompts")
            # A later change's notification comes after any repeat the burst could have caused.
            registry.register(served_registry.add)
            await heard.until("tools")
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        prompts = [p.name for p in (await client.list_prompts()).prompts]
    assert heard.counts == Counter({"resources": 1, "prompts": 1, "tools": 1})
    assert resources == ["notes://0", "notes://1", "notes://2"]
    assert prompts == ["outline", "summary"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_removing_and_replacing_entries_is_announced(mode: str) -> None:
    registry = ToolRegistry()
    registry.resources.register(_note("old"), "notes://kept", name="kept")
    registry.prompts.register(_prompt("old"), name="outline")
    heard = Heard()
    async with Client(build_server(registry), mode=mode, message_handler=heard) as client:
        async with listening(client, mode):
            registry.resources.remove("notes://kept")
            await heard.until("resources", 1)
            registry.prompts.remove("outline")  # replaced in one step: one notification
            registry.prompts.register(_prompt("new"), name="outline")
            await heard.until("prompts", 1)
            registry.resources.register(_note("again"), "notes://again", name="again")
            await heard.until("resources", 2)
        got = await client.get_prompt("outline", {"topic": "x"})
    assert heard.counts == Counter({"resources": 2, "prompts": 1})
    assert "new: x" in str(got.messages[0].content)


def test_list_changed_is_advertised_only_where_it_can_be_sent() -> None:
    def flags(server: object) -> tuple[bool | None, ...]:
        caps = server.create_initialization_options().capabilities  # type: ignore[attr-defined]
        return (caps.tools.list_changed, caps.resources.list_changed, caps.prompts.list_changed)

    duplex = build_server(ToolRegistry())
    stateful, stateless = build_server(ToolRegistry()), build_server(ToolRegistry())
    http_app(stateful, stateless=False)
    http_app(stateless)  # no connection outlives a POST: nothing could be sent on one
    assert flags(duplex) == flags(stateful) == (True, True, True)
    assert flags(stateless) == (False, False, False)
