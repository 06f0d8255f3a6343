"""A tool's progress and log messages as custom events of the LangGraph run that called it.

Inside a graph run, the :class:`~toolkit.ToolContext` of every call made through the toolkit
(``build_agent``'s tool node, a :class:`~adapters.langchain.RegistryTool` in LangGraph's
``ToolNode``) sends what the tool reports to the run's stream writer, as a :class:`ToolEvent`:

* ``await context.report_progress(...)`` (or ``context.report_progress_sync`` in a sync tool)
  and a remote MCP tool's progress notifications: ``type == "tool_progress"``;
* ``await context.log(...)`` (or ``context.log_sync``) and the log messages a remote MCP
  tool's server sends during the call: ``type == "tool_log"``; the record still goes to Python
  logging as before. (MCP does not say which call a server's log message belongs to: it is
  streamed when exactly one call is in flight on that server, as questions are routed.)

Stream with ``stream_mode=["custom", "updates"]`` (or ``"custom"`` alone) to receive them;
without ``"custom"`` LangGraph drops them at no cost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal, TypedDict

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config

from adapters.langchain.graph_config import graph_runtime
from toolkit import ToolContext
from toolkit.calls.interaction import ClientChannel, Elicitation, LogLevel, SamplingMessage

__all__ = ["ToolEvent", "is_tool_event", "with_stream_events"]

Writer = Callable[[Any], None]


class ToolEvent(TypedDict):
    """One custom stream event about a running tool call.

    Attributes:
        type: ``"tool_progress"`` or ``"tool_log"``.
        tool: The tool's registry name.
        call_id: The model's tool-call id (matches the ``ToolMessage``'s ``tool_call_id``).
        progress: Work done so far (progress events; ``None`` for logs).
        total: The whole work, when known (progress events).
        message: The progress message, or the log text (JSON for a non-text log value).
        level: The log level (``"info"``, ``"warning"``...; ``None`` for progress).
    """

    type: Literal["tool_progress", "tool_log"]
    tool: str
    call_id: str
    progress: float | None
    total: float | None
    message: str | None
    level: LogLevel | None


def is_tool_event(chunk: Any) -> bool:
    """Whether a ``"custom"`` stream chunk is a :class:`ToolEvent`."""
    return isinstance(chunk, Mapping) and chunk.get("type") in ("tool_progress", "tool_log")


def _text(data: Any) -> str:
    if isinstance(data, str):
        return data
    return json.dumps(data, default=str, ensure_ascii=False)


class _StreamedChannel:
    """A :class:`~toolkit.calls.interaction.ClientChannel` that also streams log records."""

    def __init__(self, inner: ClientChannel | None, emit: Callable[[ToolEvent], None]) -> None:
        self._inner = inner
        self._emit = emit

    async def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        self._emit(_event("tool_log", message=_text(data), level=level))
        if self._inner is not None:
            await self._inner.log(level, data, logger)

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        if self._inner is None:
            return Elicitation(action="decline")
        return await self._inner.elicit(message, schema)

    async def sample(
        self,
        messages: Sequence[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None,
        temperature: float | None,
    ) -> str:
        if self._inner is None:
            from toolkit import ErrorCode, ToolError

            raise ToolError(
                "This tool asked for a model completion, but its caller has no model to lend.",
                code=ErrorCode.DENIED,
            )
        return await self._inner.sample(
            messages, max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature
        )


def _event(
    kind: Literal["tool_progress", "tool_log"],
    *,
    progress: float | None = None,
    total: float | None = None,
    message: str | None = None,
    level: LogLevel | None = None,
) -> ToolEvent:
    return ToolEvent(
        type=kind,
        tool="",
        call_id="",
        progress=progress,
        total=total,
        message=message,
        level=level,
    )


def with_stream_events(
    context: ToolContext, config: RunnableConfig | None, tool: str
) -> ToolContext:
    """``context`` whose progress and log messages also go to the run's stream writer.

    Outside a graph run (no stream writer) ``context`` is returned as it is.
    """
    writer: Writer | None = getattr(graph_runtime(config), "stream_writer", None)
    if writer is None:
        return context
    call_id = context.call_id

    def emit(event: ToolEvent) -> None:
        event["tool"] = tool
        event["call_id"] = call_id
        # A remote server's progress arrives in its connection's task, outside the run's
        # context, and LangGraph's writer reads the run's config from there.
        token = var_child_runnable_config.set(config)
        try:
            writer(event)
        finally:
            var_child_runnable_config.reset(token)

    earlier = context.progress

    async def progress(done: float, total: float | None, message: str | None) -> None:
        emit(_event("tool_progress", progress=done, total=total, message=message))
        if earlier is not None:
            await earlier(done, total, message)

    async def remote_log(level: LogLevel, data: Any, logger: str | None) -> None:
        emit(_event("tool_log", message=_text(data), level=level))

    return replace(
        context,
        progress=progress,
        client=_StreamedChannel(context.client, emit),
        remote_log=remote_log,
    )
