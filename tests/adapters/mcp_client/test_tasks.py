"""Remote long tools called as MCP tasks by the pool: results as if plain, progress, deadlines,
and a gateway that serves them as tasks in turn (server: ours, over HTTP on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from adapters.mcp_client import McpClientPool, create_task, get_task, task_result
from adapters.mcp_server import build_server, http_app
from tests.support import task_tools
from tests.support.serving import serving
from toolkit.calls.options import CallOptions
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode
from toolkit.registry import ToolRegistry
from toolkit.tasks.runner import TaskRunner

pytestmark = pytest.mark.anyio


@pytest.fixture
def remote() -> Iterator[tuple[str, TaskRunner]]:
    runner = TaskRunner(poll_interval_ms=100)
    with serving(http_app(build_server(task_tools.build(), tasks=runner))) as url:
        yield f"{url}/mcp", runner


def _config(url: str, protocol: str = "legacy") -> dict[str, Any]:
    return {"jobs": {"url": url, "protocol": protocol}}


async def _remote_tasks(runner: TaskRunner) -> list[Any]:
    return await runner.tasks("", 0, 100)


async def test_a_task_tool_is_called_as_a_task_and_answers_as_a_plain_call(
    remote: tuple[str, TaskRunner],
) -> None:
    url, runner = remote
    heard: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    async with McpClientPool(_config(url)) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        context = ToolContext(progress=progress)
        tasked = await registry.call("jobs_export_report", {"rows": 7, "seconds": 1.2}, context)
        counted = await registry.call("jobs_quick_count", {"text": "one two"})
        failed = await registry.call("jobs_broken_export", {})
    async with McpClientPool(_config(url, "auto")) as pool:  # 2026-07-28: a plain call
        plain_registry = ToolRegistry()
        await pool.register_into(plain_registry)
        plain = await plain_registry.call("jobs_export_report", {"rows": 7, "seconds": 0.01})
    tasks = await _remote_tasks(runner)
    assert registry.get("jobs_export_report").spec.options.task_support == "optional"
    assert tasked.is_error is False
    assert (tasked.content, tasked.structured) == (plain.content, plain.structured)
    assert counted.structured == {"result": 2}
    assert failed.is_error is True and "source is offline" in failed.content
    assert sorted(t.tool for t in tasks) == ["broken_export", "export_report"]
    assert any(m and m.startswith("exported ") for m in heard)


async def test_the_task_is_cancelled_when_the_callers_deadline_passes(
    remote: tuple[str, TaskRunner],
) -> None:
    url, runner = remote
    async with McpClientPool(_config(url)) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        result = await registry.call(
            "jobs_export_report",
            {"rows": 1, "seconds": 30},
            options=CallOptions(timeout=1.0),
        )
        with anyio.fail_after(10):
            while (tasks := await _remote_tasks(runner))[0].status == "working":
                await anyio.sleep(0.05)
    assert result.code is ErrorCode.TIMEOUT
    assert [t.status for t in tasks] == ["cancelled"]


async def test_a_gateway_serves_a_remote_task_tool_as_a_task(
    remote: tuple[str, TaskRunner],
) -> None:
    url, runner = remote
    async with McpClientPool(_config(url)) as pool:
        gateway = ToolRegistry()
        await pool.register_into(gateway)
        async with Client(build_server(gateway), mode="legacy") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            task = await create_task(client, "jobs_deploy", {"service": "api", "seconds": 0.5})
            with anyio.fail_after(20):
                while (await get_task(client, task.task_id)).status == "working":
                    await anyio.sleep(0.05)
            result = await task_result(client, task.task_id)
    execution = listed["jobs_deploy"].execution
    assert execution is not None and execution.task_support == "required"
    assert result.is_error is False
    assert [b.text for b in result.content if isinstance(b, types.TextContent)] == ["deployed api"]
    assert [t.tool for t in await _remote_tasks(runner)] == ["deploy"]  # a task there too


def test_a_task_from_sync_code_runs_on_the_pools_own_loop(remote: tuple[str, TaskRunner]) -> None:
    url, runner = remote
    registry = ToolRegistry()
    with McpClientPool(_config(url)) as pool:
        pool.register_into_sync(registry)
        result = registry.call_sync("jobs_export_report", {"rows": 9, "seconds": 0.5})
    assert result.structured == {"rows": 9}
    assert [t.tool for t in anyio.run(_remote_tasks, runner)] == ["export_report"]
