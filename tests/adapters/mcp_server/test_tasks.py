"""MCP tasks (2025-11-25) served by our server, against the SDK's own client, in-process."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_client import cancel_task, create_task, get_task, list_tasks, task_result
from adapters.mcp_server import ERROR_META_KEY, build_server, http_app
from tests.support import task_tools
from tests.support.serving import serving
from toolkit import mcp_tool
from toolkit.records.call_log import CallLog
from toolkit.tasks.runner import TaskRunner
from toolkit.tasks.store import MemoryTaskStore, SqliteTaskStore

pytestmark = pytest.mark.anyio


def _server(**kwargs: Any) -> Any:
    return build_server(task_tools.build(), **kwargs)


async def _until_finished(client: Client, task_id: str) -> types.GetTaskResult:
    with anyio.fail_after(20):
        while True:
            task = await get_task(client, task_id)
            if task.status not in ("working", "input_required"):
                return task
            await anyio.sleep(0.05)


async def test_task_tools_are_listed_with_their_task_support_and_the_capability() -> None:
    async with Client(_server(), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        caps = client.server_capabilities
    support = {name: t.execution.task_support if t.execution else None for name, t in tools.items()}
    assert support == {
        "export_report": "optional",
        "deploy": "required",
        "broken_export": "optional",
        "quick_count": None,
    }
    assert caps.tasks is not None and caps.tasks.list is not None
    assert caps.tasks.cancel is not None
    assert caps.tasks.requests is not None and caps.tasks.requests.tools is not None
    assert caps.tasks.requests.tools.call is not None


async def test_a_task_answers_at_once_reports_progress_and_ends_as_a_plain_call() -> None:
    async with Client(_server(), mode="legacy") as client:
        with anyio.fail_after(2):  # answered long before the 1.2 s of work are done
            task = await create_task(
                client, "export_report", {"rows": 40, "seconds": 1.2}, ttl_ms=60_000
            )
        assert task.status == "working"
        assert task.ttl == 60_000
        messages: set[str] = set()
        while (now := await get_task(client, task.task_id)).status == "working":
            if now.status_message:
                messages.add(now.status_message)
            await anyio.sleep(0.05)
        result = await task_result(client, task.task_id)
        plain = await client.call_tool("export_report", {"rows": 40, "seconds": 0.01})
    assert now.status == "completed"
    assert messages & {"exported 10 rows", "exported 20 rows", "exported 30 rows"}
    assert result.is_error is False
    assert result.structured_content == plain.structured_content == {"rows": 40}
    assert [b.model_dump() for b in result.content] == [b.model_dump() for b in plain.content]
    related = (result.meta or {})["io.modelcontextprotocol/related-task"]
    assert related == {"taskId": task.task_id}


async def test_a_failed_call_ends_a_failed_task_with_its_coded_message() -> None:
    async with Client(_server(), mode="legacy") as client:
        task = await create_task(client, "broken_export", {})
        done = await _until_finished(client, task.task_id)
        result = await task_result(client, task.task_id)
    assert done.status == "failed"
    assert done.status_message is not None and "source is offline" in done.status_message
    assert result.is_error is True
    assert (result.meta or {})[ERROR_META_KEY]["code"] == "EXECUTION_ERROR"


async def test_invalid_arguments_fail_the_task_as_they_fail_a_plain_call() -> None:
    async with Client(_server(), mode="legacy") as client:
        task = await create_task(client, "export_report", {"rows": "many", "seconds": 0.1})
        await _until_finished(client, task.task_id)
        result = await task_result(client, task.task_id)
        plain = await client.call_tool("export_report", {"rows": "many", "seconds": 0.1})
    assert result.is_error is plain.is_error is True
    assert (result.meta or {})[ERROR_META_KEY]["code"] == "INVALID_PARAMS"
    assert _text(result).rsplit("(ref", 1)[0] == _text(plain).rsplit("(ref", 1)[0]


async def test_a_cancelled_task_stops_and_cannot_be_cancelled_twice() -> None:
    async with Client(_server(), mode="legacy") as client:
        task = await create_task(client, "export_report", {"rows": 5, "seconds": 30})
        cancelled = await cancel_task(client, task.task_id)
        after = await get_task(client, task.task_id)
        result = await task_result(client, task.task_id)
        with pytest.raises(MCPError, match="already finished"):
            await cancel_task(client, task.task_id)
    assert cancelled.status == after.status == "cancelled"
    assert result.is_error is True


async def test_a_required_task_tool_refuses_a_plain_call_and_a_plain_tool_a_task() -> None:
    async with Client(_server(), mode="legacy") as client:
        with pytest.raises(MCPError, match="runs only as a task") as plain:
            await client.call_tool("deploy", {"service": "web"})
        with pytest.raises(MCPError, match="does not run as a task") as tasked:
            await create_task(client, "quick_count", {"text": "a b"})
        task = await create_task(client, "deploy", {"service": "web"})
        await _until_finished(client, task.task_id)
        deployed = await task_result(client, task.task_id)
        counted = await client.call_tool("quick_count", {"text": "a b c"})
    assert plain.value.error.code == tasked.value.error.code == types.METHOD_NOT_FOUND
    assert _text(deployed) == "deployed web"
    assert counted.structured_content == {"result": 3}


async def test_an_optional_task_tool_called_plainly_is_a_plain_call() -> None:
    async with Client(_server(), mode="legacy") as client:
        result = await client.call_tool("export_report", {"rows": 3, "seconds": 0.01})
        listed = await list_tasks(client)
    assert result.structured_content == {"rows": 3}
    assert listed.tasks == []


async def test_tasks_are_listed_newest_first_and_unknown_ids_are_not_found() -> None:
    async with Client(_server(), mode="legacy") as client:
        first = await create_task(client, "deploy", {"service": "a", "seconds": 0.01})
        second = await create_task(client, "deploy", {"service": "b", "seconds": 0.01})
        listed = await list_tasks(client)
        with pytest.raises(MCPError, match="No task 'nope'") as missing:
            await get_task(client, "nope")
        with pytest.raises(MCPError, match="No task 'nope'"):
            await task_result(client, "nope")
    assert [t.task_id for t in listed.tasks] == [second.task_id, first.task_id]
    assert missing.value.error.code == types.INVALID_PARAMS


async def test_a_task_call_is_recorded_like_any_call() -> None:
    registry = task_tools.build()
    records: list[Any] = []
    registry.subscribe(records.append)
    async with Client(build_server(registry, tasks=TaskRunner()), mode="legacy") as client:
        task = await create_task(client, "deploy", {"service": "web", "seconds": 0.01})
        await _until_finished(client, task.task_id)
    assert [(r.tool, r.outcome, r.code) for r in records] == [("deploy", "ok", None)]


async def test_a_modern_client_gets_plain_calls() -> None:
    async with Client(_server(), mode="auto") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("export_report", {"rows": 2, "seconds": 0.01})
    assert tools["export_report"].execution is None  # the 2026-07-28 Tool has no execution
    assert result.structured_content == {"rows": 2}


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


@mcp_tool(task=True, destructive=True)
async def purge_archive(year: int) -> str:
    """Purge the archive of a year (asks its user first).

    Args:
        year: The year to purge.
    """
    return f"purged {year}"


async def test_a_task_waiting_for_its_users_approval_is_input_required() -> None:
    answer = anyio.Event()

    async def on_elicit(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        await answer.wait()
        return types.ElicitResult(action="accept", content={"approve": True})

    registry = task_tools.build()
    registry.register(purge_archive)
    server = build_server(registry)
    async with Client(server, mode="legacy", elicitation_callback=on_elicit) as client:
        task = await create_task(client, "purge_archive", {"year": 2019})
        with anyio.fail_after(20):
            while (asking := await get_task(client, task.task_id)).status == "working":
                await anyio.sleep(0.05)
        answer.set()
        done = await _until_finished(client, task.task_id)
        result = await task_result(client, task.task_id)
    assert asking.status == "input_required"
    assert asking.status_message is not None and "purge_archive" in asking.status_message
    assert done.status == "completed"
    assert _text(result) == "purged 2019"


def test_a_server_over_a_call_log_keeps_its_tasks_in_the_logs_file(tmp_path: Any) -> None:
    # `toolkit serve --call-log FILE`: every worker writes there, so every worker finds the tasks.
    registry = task_tools.build()
    log = CallLog(str(tmp_path / "calls.db")).attach(registry)
    try:
        shared = build_server(registry).tasks.runner.store
        alone = build_server(task_tools.build()).tasks.runner.store
    finally:
        log.close()
    assert isinstance(shared, SqliteTaskStore) and shared.path == str(tmp_path / "calls.db")
    assert isinstance(alone, MemoryTaskStore)


@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "stateful"])
async def test_tasks_over_http_in_both_modes(stateless: bool) -> None:
    app = http_app(build_server(task_tools.build()), stateless=stateless)
    with serving(app) as url:
        transport = streamable_http_client(f"{url}/mcp")
        async with Client(transport, mode="legacy") as client:
            task = await create_task(client, "export_report", {"rows": 6, "seconds": 0.4})
            await _until_finished(client, task.task_id)
            result = await task_result(client, task.task_id)
            with pytest.raises(MCPError, match="No task"):
                await get_task(client, "x" * 10_000)
            listed = await list_tasks(client, cursor="9" * 5000)
    assert result.structured_content == {"rows": 6}
    assert listed.tasks == []  # anonymous HTTP clients are not told apart: nothing is listed
