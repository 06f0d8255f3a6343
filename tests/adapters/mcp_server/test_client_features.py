"""Rich content, logging, progress, elicitation and sampling from tools, seen by the SDK client."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext

from adapters.mcp_server import build_server
from tests.conformance import everything_server
from toolkit import ToolContext, ToolRegistry, mcp_tool

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]


async def test_content_returned_by_a_tool_is_served_as_blocks_of_its_type() -> None:
    async with Client(build_server(everything_server.registry), mode="legacy") as client:
        image = await client.call_tool("test_image_content", {})
        audio = await client.call_tool("test_audio_content", {})
        mixed = await client.call_tool("test_multiple_content_types", {})
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert [b.type for b in image.content] == ["image"]
    assert isinstance(image.content[0], types.ImageContent)
    assert image.content[0].data == everything_server.PIXEL_PNG
    assert [b.type for b in audio.content] == ["audio"]
    assert [b.type for b in mixed.content] == ["text", "image", "resource"]
    resource = mixed.content[2]
    assert isinstance(resource, types.EmbeddedResource)
    assert str(resource.resource.uri) == "test://mixed-content-resource"
    # Content is not data: no output schema, no structuredContent.
    assert listed["test_image_content"].output_schema is None
    assert mixed.structured_content is None


async def test_hand_written_2020_12_schema_is_served_as_written() -> None:
    async with Client(build_server(everything_server.registry), mode="legacy") as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    schema = listed["json_schema_2020_12_tool"].input_schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in schema["$defs"]
    assert schema["additionalProperties"] is False


async def test_tool_logs_reach_the_client_at_or_above_its_level() -> None:
    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    server = build_server(everything_server.registry)
    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        await client.set_logging_level("info")
        await client.call_tool("test_tool_with_logging", {})
        assert [r.data for r in received] == [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        await client.set_logging_level("error")
        await client.call_tool("test_tool_with_logging", {})
    assert len(received) == 3  # info records are below "error"


async def test_progress_reaches_a_caller_that_asked_for_it() -> None:
    updates: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total))

    async with Client(build_server(everything_server.registry), mode="legacy") as client:
        await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    assert updates == [(0, 100), (50, 100), (100, 100)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_tool_has_a_progress_listener_only_when_its_caller_asked(mode: str) -> None:
    # A gateway forwards ``context.progress`` as a progress token to its remote: a caller that
    # gave none must not make the remote report progress that nobody reads.
    @mcp_tool
    async def listened(context: ToolContext) -> bool:
        """Whether anyone listens for this call's progress."""
        await context.report_progress(1, 1)  # a no-op when nobody does
        return context.progress is not None

    registry = ToolRegistry()
    registry.register(listened)
    updates: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append(progress)

    async with Client(build_server(registry), mode=mode) as client:
        unasked = await client.call_tool("listened", {})
        asked = await client.call_tool("listened", {}, progress_callback=on_progress)
    assert unasked.structured_content == {"result": False}
    assert asked.structured_content == {"result": True}
    assert updates == [1]


async def test_elicitation_and_sampling_go_to_the_client() -> None:
    asked: list[str] = []

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "a@b.c"})

    async def on_sample(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        prompt = params.messages[0].content
        assert isinstance(prompt, types.TextContent)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=prompt.text.upper()),
            model="upper",
        )

    server = build_server(everything_server.registry)
    async with Client(
        server, mode="legacy", elicitation_callback=on_elicit, sampling_callback=on_sample
    ) as client:
        elicited = await client.call_tool("test_elicitation", {"message": "Who are you?"})
        sampled = await client.call_tool("test_sampling", {"prompt": "hello"})
    assert asked == ["Who are you?"]
    assert _text(elicited) == (
        'User response: action=accept, content={"username": "ada", "email": "a@b.c"}'
    )
    assert _text(sampled) == "LLM response: HELLO"


async def test_elicitation_without_the_capability_fails_with_a_clear_message() -> None:
    async with Client(build_server(everything_server.registry), mode="legacy") as client:
        result = await client.call_tool("test_elicitation", {"message": "Who?"})
        sampled = await client.call_tool("test_sampling", {"prompt": "hi"})
    assert result.is_error is True
    assert "did not declare the MCP 'elicitation' capability" in _text(result)
    assert sampled.is_error is True
    assert "'sampling' capability" in _text(sampled)


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _destructive_registry() -> Any:
    from toolkit import ToolRegistry, mcp_tool

    @mcp_tool(destructive=True)
    def drop_table(table: str) -> str:
        """Drop a table."""
        return f"dropped {table}"

    registry = ToolRegistry()
    registry.register(drop_table)
    return registry


@pytest.mark.parametrize("approve", [True, False])
async def test_destructive_tools_are_approved_by_the_clients_user(approve: bool) -> None:
    asked: list[str] = []

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": approve})

    server = build_server(_destructive_registry())
    async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
        result = await client.call_tool("drop_table", {"table": "users"})
    assert len(asked) == 1 and "drop_table" in asked[0] and "users" in asked[0]
    assert result.is_error is (not approve)
    assert ("dropped users" in _text(result)) is approve


async def test_without_elicitation_only_operator_allowed_destructive_tools_run() -> None:
    async with Client(build_server(_destructive_registry()), mode="legacy") as client:
        refused = await client.call_tool("drop_table", {"table": "users"})
    allowed_server = build_server(_destructive_registry(), allow_destructive=["drop_table"])
    async with Client(allowed_server, mode="legacy") as client:
        allowed = await client.call_tool("drop_table", {"table": "users"})
    assert refused.is_error is True
    assert "--allow-destructive drop_table" in _text(refused)
    assert allowed.is_error is False and _text(allowed) == "dropped users"


async def test_a_cancelled_request_cancels_the_running_tool() -> None:
    import anyio

    from toolkit import ToolRegistry, mcp_tool

    started = anyio.Event()
    seen: list[str] = []

    @mcp_tool
    async def slow() -> str:
        """Take long."""
        started.set()
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            seen.append("cancelled")
            raise
        return "done"

    registry = ToolRegistry()
    registry.register(slow)
    async with Client(build_server(registry), mode="legacy") as client:
        async with anyio.create_task_group() as tg:

            async def call() -> None:
                await client.call_tool("slow", {})

            tg.start_soon(call)
            await started.wait()
            tg.cancel_scope.cancel()  # the client sends notifications/cancelled
        with anyio.fail_after(5):
            while not seen:
                await anyio.sleep(0.05)
    assert seen == ["cancelled"]


async def test_toolkit_log_records_during_a_call_reach_the_client() -> None:
    import logging

    from toolkit import ToolRegistry, mcp_tool

    @mcp_tool
    def check_disk() -> str:
        """Check the disk (a sync tool: it runs in a worker thread)."""
        logging.getLogger("toolkit.disk").warning("disk %d%% full", 91)
        return "ok"

    received: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params)

    registry = ToolRegistry()
    registry.register(check_disk)
    async with Client(build_server(registry), mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("check_disk", {})
    assert [(r.level, r.data, r.logger) for r in received] == [
        ("warning", "disk 91% full", "toolkit.disk")
    ]


async def test_log_messages_to_the_client_are_scrubbed_of_secrets() -> None:
    @mcp_tool
    async def connect(context: ToolContext) -> str:
        """Connect to the warehouse database."""
        await context.log("info", "connecting with password=hunter2-very-secret")
        await context.log("info", {"url": "postgres://app:s3cr3t-pass@db/stock", "step": 1})
        return "connected"

    received: list[Any] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append(params.data)

    registry = ToolRegistry()
    registry.register(connect)
    async with Client(build_server(registry), mode="legacy", logging_callback=on_log) as client:
        await client.call_tool("connect", {})
    assert len(received) == 2
    shown = repr(received)
    assert "hunter2-very-secret" not in shown and "s3cr3t-pass" not in shown
    assert received[1]["step"] == 1
