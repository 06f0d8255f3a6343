"""MCP tasks (2025-11-25): a long tool call answered at once, its result fetched later.

A tool marked ``@mcp_tool(task=...)`` is listed with ``execution.taskSupport``. A
``tools/call`` that carries ``task`` is answered at once with a ``CreateTaskResult``; the call
itself runs through the same path as a plain call (policy, validation, processor, records,
result budget, middleware) on this worker's loop, its progress messages becoming the task's
``statusMessage``. ``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel`` read
the :class:`~toolkit.tasks.runner.TaskRunner`'s store, scoped to the caller who created the task:
another caller's task answers exactly as an unknown one.

The SDK ships these methods' types only (it dispatches none of them), so they are served as
added request methods, and the task-creating ``tools/call`` is answered by a server middleware
(the SDK's ``tools/call`` result check knows only ``CallToolResult``). The 2026-07-28 revision
moved tasks into an extension the SDK has no types for: its clients get plain calls.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    CallToolRequestParams,
    CancelTaskRequestParams,
    GetTaskPayloadRequestParams,
    GetTaskRequestParams,
    PaginatedRequestParams,
    ServerTasksCapability,
    ServerTasksRequestsCapability,
    TasksCallCapability,
    TasksCancelCapability,
    TasksListCapability,
    TasksToolsCapability,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from adapters.mcp_server._callers import visible_entries
from adapters.mcp_server._channel import SessionChannel
from adapters.mcp_wire import ERROR_META_KEY, call_result
from toolkit.calls.interaction import Elicitation, SamplingMessage
from toolkit.errors import ErrorCode, ToolError
from toolkit.registry import ToolRegistry
from toolkit.result import ToolResult
from toolkit.results.store import SqliteResultStore, owner_of
from toolkit.tasks.runner import TaskOutcome, TaskReporter, TaskRunner
from toolkit.tasks.store import SqliteTaskStore, StoredTask

if TYPE_CHECKING:
    from adapters.mcp_server._server import RegistryServer

__all__ = ["RELATED_TASK_META_KEY", "TaskServing", "default_runner", "task_capability"]

#: ``_meta`` key tying a message to its task.
RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task"

_PAGE = 50


def task_capability() -> ServerTasksCapability:
    """The ``tasks`` capability a 2025-11-25 client is told of."""
    return ServerTasksCapability(
        list=TasksListCapability(),
        cancel=TasksCancelCapability(),
        requests=ServerTasksRequestsCapability(
            tools=TasksToolsCapability(call=TasksCallCapability())
        ),
    )


def default_runner(registry: ToolRegistry) -> TaskRunner:
    """A runner over the file of the registry's shared result store (the call log's, where
    every worker of the server writes), so that the workers answer for each other's tasks; in
    memory when results are kept in memory."""
    store = registry.settings.result_store
    if isinstance(store, SqliteResultStore):
        return TaskRunner(SqliteTaskStore(store.path))
    return TaskRunner()


def _iso(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).isoformat().replace("+00:00", "Z")


def task_wire(task: StoredTask) -> dict[str, Any]:
    """The MCP ``Task`` of ``task``."""
    out: dict[str, Any] = {
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": _iso(task.created_at),
        "lastUpdatedAt": _iso(task.updated_at),
        "ttl": task.ttl_ms,
        "pollInterval": task.poll_interval_ms,
    }
    if task.status_message:
        out["statusMessage"] = task.status_message
    return out


def _not_found(task_id: str) -> MCPError:
    # The same answer for an unknown, expired and someone else's task: nothing leaks.
    return MCPError(
        INVALID_PARAMS,
        f"No task {task_id!r}: it does not exist, has expired, or was created by another caller.",
    )


class TaskServing:
    """The tasks side of one :class:`~adapters.mcp_server.RegistryServer`.

    Args:
        server: The server whose calls run as tasks.
        runner: Starts the tasks and keeps them (its store may be shared by several workers).
    """

    def __init__(self, server: RegistryServer, runner: TaskRunner) -> None:
        self.server = server
        self.runner = runner

    def install(self) -> None:
        """Serve ``tasks/*`` and answer task-carrying ``tools/call`` requests."""
        server = self.server
        server.add_request_handler("tasks/get", GetTaskRequestParams, self._get)
        server.add_request_handler("tasks/result", GetTaskPayloadRequestParams, self._result)
        server.add_request_handler("tasks/list", PaginatedRequestParams, self._list)
        server.add_request_handler("tasks/cancel", CancelTaskRequestParams, self._cancel)
        server.middleware.append(self)

    def _support(self, name: str) -> str:
        registry = self.server.registry
        return registry.get(name).spec.options.task_support if name in registry else "forbidden"

    def passes_through(self, method: str, version: str, params: Mapping[str, Any] | None) -> bool:
        """Whether :meth:`__call__` only hands such a request on (:mod:`._chain`)."""
        return (
            method != "tools/call"
            or not isinstance(params, Mapping)
            or version in MODERN_PROTOCOL_VERSIONS
        )

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: a ``tools/call`` with ``task`` becomes a task."""
        params = ctx.params
        if (
            ctx.method != "tools/call"
            or not isinstance(params, Mapping)
            or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        ):
            return await call_next(ctx)
        name = params.get("name")
        support = self._support(name) if isinstance(name, str) else "forbidden"
        if params.get("task") is None:
            if support == "required" and await self._visible(ctx, str(name)):
                raise MCPError(
                    METHOD_NOT_FOUND,
                    f"Tool {name} runs only as a task: call it with 'task' in the params "
                    "(its execution.taskSupport is 'required').",
                )
            return await call_next(ctx)
        if name not in self.server.registry or not await self._visible(ctx, str(name)):
            return await call_next(ctx)  # not found, answered as a plain call answers it
        if support == "forbidden":
            raise MCPError(
                METHOD_NOT_FOUND, f"Tool {name} does not run as a task: call it without 'task'."
            )
        call = CallToolRequestParams.model_validate(params, by_name=False)
        owner = owner_of(self.server.caller_values(ctx))
        ttl = call.task.ttl if call.task is not None else None

        async def work(report: TaskReporter) -> TaskOutcome:
            channel = functools.partial(_AskingChannel, waiting=report.waiting)
            result = await self.server.run_call(
                ctx, call, progress=report.progress, channel_type=channel
            )
            failed = bool(result.get("isError"))
            error = (result.get("_meta") or {}).get(ERROR_META_KEY) or {}
            return TaskOutcome(
                result,
                failed=failed,
                message=_first_text(result) if failed else None,
                code=error.get("code") if failed else None,
            )

        task = await self.runner.start(owner, call.name, work, ttl_ms=ttl)
        return {"task": task_wire(task)}

    async def _visible(self, ctx: ServerRequestContext[Any, Any], name: str) -> bool:
        server = self.server
        if server.callers is None:
            return True
        values = server.caller_values(ctx)
        visible = await visible_entries(server.registry, [{"name": name}], values, server.policy)
        return bool(visible)

    def _owner(self, ctx: ServerRequestContext[Any, Any]) -> str:
        return owner_of(self.server.caller_values(ctx))

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: GetTaskRequestParams
    ) -> dict[str, Any]:
        task = await self.runner.get(params.task_id, self._owner(ctx))
        if task is None:
            raise _not_found(params.task_id)
        return task_wire(task)

    async def _result(
        self, ctx: ServerRequestContext[Any, Any], params: GetTaskPayloadRequestParams
    ) -> dict[str, Any]:
        task = await self.runner.wait(params.task_id, self._owner(ctx))
        if task is None:
            raise _not_found(params.task_id)
        if task.result is not None:
            payload = dict(task.result)
        else:  # cancelled, or failed without a result (its worker stopped)
            code = ErrorCode(task.code) if task.code else ErrorCode.EXECUTION_ERROR
            text = task.status_message or f"The task was {task.status}."
            error = ToolError(text, code=code, retryable=False)
            payload = call_result(ToolResult.failure(error, tool=task.tool), None)
        meta = dict(payload.get("_meta") or {})
        meta[RELATED_TASK_META_KEY] = {"taskId": task.task_id}
        payload["_meta"] = meta
        payload.pop("resultType", None)
        return payload

    async def _list(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> dict[str, Any]:
        owner = self._owner(ctx)
        if not owner and ctx.request is not None:
            # Anonymous HTTP clients are not told apart: none may list the others' tasks.
            return {"tasks": []}
        cursor = params.cursor if params is not None else None
        offset = int(cursor) if cursor and len(cursor) <= 9 and cursor.isdigit() else 0
        tasks = await self.runner.tasks(owner, offset, _PAGE + 1)
        out: dict[str, Any] = {"tasks": [task_wire(t) for t in tasks[:_PAGE]]}
        if len(tasks) > _PAGE:
            out["nextCursor"] = str(offset + _PAGE)
        return out

    async def _cancel(
        self, ctx: ServerRequestContext[Any, Any], params: CancelTaskRequestParams
    ) -> dict[str, Any]:
        owner = self._owner(ctx)
        task = await self.runner.get(params.task_id, owner)
        if task is None:
            raise _not_found(params.task_id)
        if task.live:  # it may still finish first
            task = await self.runner.cancel(params.task_id, owner) or task
            if task.status == "cancelled":
                return task_wire(task)
        raise MCPError(
            INVALID_PARAMS,
            f"Task {params.task_id!r} has already finished ({task.status}); it cannot be "
            "cancelled.",
        )


class _AskingChannel(SessionChannel):
    """The channel of a task's call: ``input_required`` while it waits for the client.

    Its request was answered long ago (with the task), so questions and log messages go on
    the connection's own channel (stdio, a stateful HTTP session's stream), not the request's.
    """

    def __init__(
        self,
        ctx: ServerRequestContext[Any, Any],
        *args: Any,
        waiting: Callable[[str | None], Awaitable[None]],
        **kwargs: Any,
    ) -> None:
        super().__init__(dataclasses.replace(ctx, request_id=None), *args, **kwargs)
        self._waiting = waiting

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the user, the task ``input_required`` meanwhile."""
        await self._waiting(message)
        try:
            return await super().elicit(message, schema)
        finally:
            await self._waiting(None)

    async def sample(
        self,
        messages: Sequence[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None,
        temperature: float | None,
    ) -> str:
        """Ask the client's model, the task ``input_required`` meanwhile."""
        await self._waiting("Waiting for the client's model to answer.")
        try:
            return await super().sample(
                messages,
                max_tokens=max_tokens,
                system_prompt=system_prompt,
                temperature=temperature,
            )
        finally:
            await self._waiting(None)


def _first_text(result: Mapping[str, Any]) -> str | None:
    for block in result.get("content") or ():
        if isinstance(block, Mapping) and block.get("type") == "text":
            text = str(block.get("text", ""))
            return text[:500]
    return None
