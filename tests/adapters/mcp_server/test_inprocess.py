"""Our server against the SDK's own ``mcp.Client``, in-process, in both protocol generations."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import ERROR_META_KEY, build_server
from tests.support import served_registry
from tests.support.listing import tool_names_and_pages

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_tools_list_serves_the_specs_verbatim(mode: str) -> None:
    registry = served_registry.build()
    async with Client(build_server(registry), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert list(listed) == registry.names()
    for spec in registry.specs():
        assert listed[spec.name].input_schema == spec.input_schema
        assert listed[spec.name].description == spec.description
    echo = listed["echo"]
    assert echo.title == "Echo"
    assert echo.annotations is not None
    assert echo.annotations.read_only_hint is True
    assert echo.annotations.idempotent_hint is True
    # Lenient output (the default): a value may break the schema, so none is published.
    assert listed["find_bin"].output_schema is None


async def test_tools_with_strict_output_publish_their_output_schema(mode: str) -> None:
    registry = served_registry.build(strict_output=True)
    async with Client(build_server(registry), mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        found = await client.call_tool("find_bin", {"code": "B-12"})
    assert listed["find_bin"].output_schema == registry.get("find_bin").spec.output_schema
    assert listed["add"].output_schema == registry.get("add").spec.output_schema
    assert listed["slow"].output_schema == registry.get("slow").spec.output_schema
    assert found.structured_content == {"code": "B-12", "zone": "north"}


async def test_a_call_returns_text_and_structured_content(mode: str) -> None:
    async with Client(build_server(served_registry.build()), mode=mode) as client:
        found = await client.call_tool("find_bin", {"code": "B-12"})
        summed = await client.call_tool("add", {"a": 2, "b": 3})
    assert found.is_error is False
    assert found.structured_content == {"code": "B-12", "zone": "north"}
    assert isinstance(found.content[0], types.TextContent)
    assert "north" in found.content[0].text
    assert summed.structured_content == {"result": 5}
    assert isinstance(summed.content[0], types.TextContent)
    assert summed.content[0].text == "5"


async def test_a_failing_tool_is_an_error_result_with_the_processor_message(mode: str) -> None:
    async with Client(build_server(served_registry.build()), mode=mode) as client:
        result = await client.call_tool("find_bin", {"code": "X-1"})
    assert result.is_error is True
    text = _text(result)
    assert "bin X-1 not found in warehouse" in text
    assert "Traceback" not in text
    assert result.meta is not None
    assert result.meta[ERROR_META_KEY]["code"] == "EXECUTION_ERROR"


async def test_invalid_arguments_are_an_error_result_naming_the_parameter(mode: str) -> None:
    async with Client(build_server(served_registry.build()), mode=mode) as client:
        wrong_type = await client.call_tool("add", {"a": "many"})
        unknown = await client.call_tool("add", {"a": 1, "bb": 2})
    assert wrong_type.is_error and "a" in _text(wrong_type)
    assert wrong_type.meta is not None
    assert wrong_type.meta[ERROR_META_KEY]["code"] == "INVALID_PARAMS"
    assert unknown.is_error and "bb" in _text(unknown) and "b" in _text(unknown)


async def test_an_unknown_tool_is_a_protocol_error_naming_close_tools(mode: str) -> None:
    async with Client(build_server(served_registry.build()), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("find_bins", {"code": "B-1"})
        assert caught.value.code == types.INVALID_PARAMS
        assert "find_bin" in caught.value.message
        assert (await client.call_tool("echo", {"text": "still here"})).is_error is False


async def test_progress_reaches_the_client(mode: str) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(build_server(served_registry.build()), mode=mode) as client:
        result = await client.call_tool("slow", {"steps": 3}, progress_callback=on_progress)
    assert _text(result) == "done after 3 steps"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_a_cancelled_call_stops_the_tool(mode: str) -> None:
    served_registry.CANCELLED.clear()
    async with Client(build_server(served_registry.build()), mode=mode) as client:
        with anyio.move_on_after(0.3):
            await client.call_tool("slow", {"steps": 100})
        with anyio.fail_after(5):
            while not served_registry.CANCELLED:
                await anyio.sleep(0.02)
        assert (await client.call_tool("echo", {"text": "after"})).is_error is False


async def test_pages_follow_the_cursor_and_a_bad_cursor_is_refused(mode: str) -> None:
    registry = served_registry.numbered(25)
    async with Client(build_server(registry, page_size=10), mode=mode) as client:
        names, pages = await tool_names_and_pages(client)
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor="not-a-cursor")
    assert names == registry.names()
    assert pages == 3
    assert caught.value.code == types.INVALID_PARAMS
    assert "cursor" in caught.value.message


async def test_a_cursor_from_an_older_list_is_refused() -> None:
    registry = served_registry.numbered(5)
    server = build_server(registry, page_size=2)
    async with Client(server, mode="legacy") as client:
        cursor = (await client.list_tools()).next_cursor
        registry.register(served_registry.echo, name="late_tool")
        with pytest.raises(MCPError) as caught:
            await client.list_tools(cursor=cursor)
    assert "changed" in caught.value.message


async def test_a_handshake_client_hears_list_changed_and_sees_the_new_tool() -> None:
    registry = served_registry.build()
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    async with Client(build_server(registry), mode="legacy", message_handler=on_message) as client:
        await client.list_tools()  # the handshake is complete once a request was answered
        registry.register(served_registry.echo, name="echo_again")
        with anyio.fail_after(5):
            await heard.wait()
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert "echo_again" in names


async def test_a_modern_client_hears_list_changed_through_listen() -> None:
    registry = served_registry.build()
    async with Client(build_server(registry)) as client:
        async with client.listen(tools_list_changed=True) as subscription:
            registry.remove("slow")
            with anyio.fail_after(5):
                async for _event in subscription:
                    break
        names = [tool.name for tool in (await client.list_tools()).tools]
    assert "slow" not in names


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))
