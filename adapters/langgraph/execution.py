"""Running the model's tool calls inside a graph: one call per task, through the registry."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolCall
from langchain_core.runnables import RunnableConfig
from langgraph.prebuilt import ToolRuntime

from adapters.langchain.approval import call_options
from adapters.langchain.graph_config import graph_runtime
from adapters.langchain.injection import ContextKeys, Injection, find_injections
from adapters.langchain.messages import to_tool_message
from adapters.langchain.tool import build_context
from adapters.langgraph._argument_size import oversize
from adapters.langgraph._budget import AgentRuns
from adapters.langgraph._sequential import Gates
from adapters.langgraph.state import ToolCallEntry
from toolkit import CallOptions, ToolRegistry, ToolResult

__all__ = ["ToolExecutor", "ToolTask"]


@dataclass(frozen=True, slots=True)
class ToolTask:
    """What a tools task receives through ``Send``: one call, its turn, the state if needed,
    and the key of its turn's gate when the turn holds a sequential tool's call."""

    call: ToolCall
    iteration: int
    state: Any = None
    run: str | None = None
    gate: str | None = None


def _entry(task: ToolTask, result: ToolResult) -> ToolCallEntry:
    record = result.record
    return ToolCallEntry(
        iteration=task.iteration,
        call_id=task.call.get("id") or "",
        tool=task.call["name"],
        arguments=record.arguments if record else task.call.get("args"),
        result=result.content,
        is_error=result.is_error,
        code=result.code.value if result.code else None,
        decision=record.decision if record else "allow",
        duration_ms=round(record.duration_ms, 3) if record else 0.0,
    )


@dataclass
class ToolExecutor:
    """Runs one model tool call through ``registry.call`` and answers with a ``ToolMessage``.

    Attributes:
        registry: Where every call goes.
        context_keys: Caller values for ``ToolContext.values``.
        options: :class:`~toolkit.CallOptions` for every call (policy, timeout, record hook…).
        extra: The agent's own tools (the tool search), for names ``registry`` lacks.
        runs: The agent's runs, when it has a budget: each call counts against its task's.
        max_argument_chars: Calls whose arguments are longer are answered ``INVALID_PARAMS``
            and not run (``None``: no bound).
    """

    registry: ToolRegistry
    context_keys: ContextKeys | None = None
    options: CallOptions | None = None
    extra: ToolRegistry | None = None
    runs: AgentRuns | None = None
    max_argument_chars: int | None = None
    _injections: dict[str, list[Injection]] = field(default_factory=dict)
    _gates: Gates = field(default_factory=Gates)

    def registry_of(self, name: str) -> ToolRegistry:
        """Where a call of tool ``name`` goes."""
        extra = self.extra
        if extra is not None and name in extra and name not in self.registry:
            return extra
        return self.registry

    def injections(self, name: str) -> list[Injection]:
        """The LangGraph-injected parameters of tool ``name`` (cached)."""
        if name not in self._injections:
            tool = self.registry.get(name) if name in self.registry else None
            self._injections[name] = find_injections(tool) if tool is not None else []
        return self._injections[name]

    def forget(self) -> None:
        """Drop the cached injections: the registry's tools changed."""
        self._injections.clear()

    def needs_state(self, name: str) -> bool:
        """Whether tool ``name`` takes injected state or runtime (so tasks must carry state)."""
        return any(i.kind in ("state", "runtime") for i in self.injections(name))

    def sequential(self, name: str) -> bool:
        """Whether tool ``name`` must not run concurrently with the other calls of its turn."""
        registry = self.registry_of(name)
        return name in registry and registry.get(name).spec.options.sequential

    def gate_of(self, calls: Sequence[ToolCall]) -> str | None:
        """A gate key for a turn's calls if one of them is sequential (else ``None``)."""
        if len(calls) > 1 and any(self.sequential(c["name"]) for c in calls):
            return uuid.uuid4().hex
        return None

    def _options(self, task: ToolTask, config: RunnableConfig) -> CallOptions:
        call_id = task.call.get("id") or None
        injections = self.injections(task.call["name"])
        runtime = _tool_runtime(task, config) if injections else None
        context = build_context(
            tool_call_id=call_id,
            runtime=runtime,
            config=config,
            injections=injections,
            context_keys=self.context_keys,
            tool=task.call["name"],
        )
        options = call_options(config, context=context, call_id=call_id, base=self.options)
        # The model is offered only what its caller sees (_per_run_tools): a call of another
        # tool is answered as one of a tool that does not exist, naming the visible ones.
        return options.replace(hide_denied=True)

    def _update(self, task: ToolTask, result: ToolResult) -> dict[str, Any]:
        call_id = task.call.get("id") or result.call_id
        message = to_tool_message(result, call_id, task.call["name"])
        return {"messages": [message], "tool_calls": [_entry(task, result)]}

    def run(self, task: ToolTask, config: RunnableConfig) -> dict[str, Any]:
        """Run the call of ``task`` (blocking)."""
        if (refused := oversize(task.call, self.max_argument_chars)) is not None:
            return self._update(task, refused)
        args = task.call.get("args")
        name = task.call["name"]
        with self._run(task), self._gates.hold(task.gate, self.sequential(name)):
            result = self.registry_of(name).call_sync(
                name, args, options=self._options(task, config)
            )
        return self._update(task, result)

    async def arun(self, task: ToolTask, config: RunnableConfig) -> dict[str, Any]:
        """Run the call of ``task``."""
        if (refused := oversize(task.call, self.max_argument_chars)) is not None:
            return self._update(task, refused)
        args = task.call.get("args")
        name = task.call["name"]
        with self._run(task):
            async with self._gates.ahold(task.gate, self.sequential(name)):
                result = await self.registry_of(name).call(
                    name, args, options=self._options(task, config)
                )
        return self._update(task, result)

    def _run(self, task: ToolTask) -> contextlib.AbstractContextManager[None]:
        """The agent's run of ``task`` made current, when the agent has a budget."""
        return contextlib.nullcontext() if self.runs is None else self.runs.scope(task.run)


def _tool_runtime(task: ToolTask, config: RunnableConfig) -> ToolRuntime:
    runtime = graph_runtime(config)
    return ToolRuntime(
        state=task.state,
        context=getattr(runtime, "context", None),
        config=config,
        stream_writer=getattr(runtime, "stream_writer", None) or (lambda _chunk: None),
        tool_call_id=task.call.get("id"),
        store=getattr(runtime, "store", None),
    )
