"""Calling a remote tool as an MCP task (2025-11-25): create, poll, fetch, cancel.

A server that lists a tool with ``execution.taskSupport`` ``optional`` or ``required`` and
announces the ``tasks.requests.tools.call`` capability gets the call as a task: the
``tools/call`` carries ``task`` and is answered at once; the task is polled with ``tasks/get``
(from the server's ``pollInterval``, backing off to :data:`MAX_POLL`), each new
``statusMessage`` reaching the caller as progress; ``tasks/result`` (at once when the task
needs input, as the server may deliver its questions there) brings the result, which
the caller gets as that of a plain call. When the caller gives up (its deadline passed, it
was cancelled), the task is cancelled on the server. No request holds a connection for the
whole call, so a long task outlives dropped connections and reconnects.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from adapters.mcp_client._http_transport import call_headers
from adapters.mcp_client._sdk_private import send_unchecked
from toolkit.context import LogCallback, ProgressCallback
from toolkit.errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from adapters.mcp_client._connection import Connection

__all__ = [
    "MAX_POLL",
    "call_as_task",
    "cancel_task",
    "create_task",
    "get_task",
    "list_tasks",
    "takes_tasks",
    "task_result",
]

#: The longest wait between two ``tasks/get`` polls, in seconds.
MAX_POLL = 5.0
_MIN_POLL = 0.05


def takes_tasks(client: Client, tool: mcp_types.Tool) -> bool:
    """Whether ``tool`` may be called as a task on this connection."""
    execution = tool.execution
    if execution is None or execution.task_support not in ("optional", "required"):
        return False
    if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return False
    tasks = client.server_capabilities.tasks
    requests = tasks.requests if tasks is not None else None
    return bool(requests and requests.tools and requests.tools.call is not None)


async def create_task(
    client: Client,
    name: str,
    arguments: Mapping[str, Any],
    *,
    ttl_ms: int | None = None,
    meta: Mapping[str, Any] | None = None,
    timeout: float | None = None,
) -> mcp_types.Task:
    """Send a task-carrying ``tools/call``: the task the server created."""
    params = mcp_types.CallToolRequestParams(
        name=name,
        arguments=dict(arguments),
        task=mcp_types.TaskMetadata(ttl=ttl_ms),
        _meta=dict(meta) if meta else None,  # type: ignore[arg-type]
    )
    raw = await send_unchecked(client.session, mcp_types.CallToolRequest(params=params), timeout)
    if "task" not in raw:
        raise ToolError(
            f"The server answered a task request for {name} with a plain result; it does not "
            "run this tool as a task.",
            code=ErrorCode.PROTOCOL_ERROR,
        )
    return mcp_types.CreateTaskResult.model_validate(raw, by_name=False).task


async def get_task(client: Client, task_id: str) -> mcp_types.GetTaskResult:
    """``tasks/get``: the task's status now."""
    request = mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, mcp_types.GetTaskResult)


async def task_result(client: Client, task_id: str) -> mcp_types.CallToolResult:
    """``tasks/result``: the call's result (the server waits until the task has finished)."""
    request = mcp_types.GetTaskPayloadRequest(
        params=mcp_types.GetTaskPayloadRequestParams(task_id=task_id)
    )
    return await client.session.send_request(request, mcp_types.CallToolResult)


async def cancel_task(client: Client, task_id: str) -> mcp_types.CancelTaskResult:
    """``tasks/cancel``: the task, cancelled."""
    request = mcp_types.CancelTaskRequest(params=mcp_types.CancelTaskRequestParams(task_id=task_id))
    return await client.session.send_request(request, mcp_types.CancelTaskResult)


async def list_tasks(client: Client, cursor: str | None = None) -> mcp_types.ListTasksResult:
    """``tasks/list``: one page of the caller's tasks."""
    params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
    request = mcp_types.ListTasksRequest(params=params)
    return await client.session.send_request(request, mcp_types.ListTasksResult)


async def call_as_task(
    connection: Connection,
    tool: mcp_types.Tool,
    arguments: dict[str, Any],
    *,
    meta: dict[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    progress: ProgressCallback | None = None,
    log: LogCallback | None = None,
) -> mcp_types.CallToolResult:
    """Call ``tool`` as a task when the connection allows it, else as a plain call.

    Raises:
        ToolError: As for a plain call (``UNREACHABLE``, ``TIMEOUT``…), and
            ``EXECUTION_ERROR`` for a task the server cancelled or lost.
    """
    timeout = connection.config.call_timeout

    async def send(phase: str, request: Any) -> Any:
        async def run(client: Client) -> Any:  # on the connection's own loop
            token = call_headers.set(dict(headers or {}))
            try:
                return await request(client)
            finally:
                call_headers.reset(token)

        return await connection.request(phase, run)

    async def start(client: Client) -> mcp_types.Task | None:
        if not takes_tasks(client, tool):
            return None
        return await create_task(client, tool.name, arguments, meta=meta, timeout=timeout)

    task: mcp_types.Task | None = await send("tools/call", start)
    if task is None:  # not offered as a task on this connection: a plain call
        return await connection.call_tool(
            tool.name, arguments, meta=meta, headers=headers, progress=progress, log=log
        )
    task_id = task.task_id
    try:
        delay = min(max((task.poll_interval or 500) / 1000, _MIN_POLL), MAX_POLL)
        said = task.status_message
        for step in itertools.count(1):
            # input_required: tasks/result is where a server may deliver its questions.
            if task.status != "working":
                break
            await anyio.sleep(delay)
            delay = min(delay * 1.5, MAX_POLL)
            task = await send("tasks/get", lambda c: get_task(c, task_id))
            if progress is not None and task.status_message and task.status_message != said:
                said = task.status_message
                await progress(step, None, said)
        result: mcp_types.CallToolResult = await send(
            "tasks/result", lambda c: task_result(c, task_id)
        )
        return result
    except BaseException:
        # The caller gave up (deadline, cancellation): the server need not run it on.
        with anyio.CancelScope(shield=True), anyio.move_on_after(5), contextlib.suppress(Exception):
            await send("tasks/cancel", lambda c: cancel_task(c, task_id))
        raise
