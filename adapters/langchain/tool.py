"""Registry tools as LangChain ``BaseTool`` objects.

Each :class:`RegistryTool` is a thin translator: the model sees the tool's own input schema,
every call goes through ``registry.call`` (validation, policy, timeout, retries, processor), and
the result comes back as a ``ToolMessage`` — with ``status="error"`` and the processor's message
for a failure, so a plain ``ToolNode()`` keeps running instead of aborting.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Collection
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolRuntime
from pydantic import ConfigDict, Field

from adapters.langchain.approval import call_options
from adapters.langchain.asking import InterruptChannel
from adapters.langchain.graph_config import graph_runtime, in_graph
from adapters.langchain.injection import (
    ContextKeys,
    Injection,
    context_values,
    find_injections,
    injected_values,
)
from adapters.langchain.messages import result_content, to_tool_message
from adapters.langchain.stream_events import with_stream_events
from toolkit import CallOptions, Tool, ToolContext, ToolRegistry, ToolResult

__all__ = ["RegistryTool", "build_context", "to_langchain_tools"]

#: Where LangGraph's ToolNode puts the call's ToolRuntime when the function declares none.
_RUNTIME_PARAM = "toolkit_runtime"
_tool_call_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "toolkit_tool_call_id", default=None
)


def build_context(
    *,
    tool_call_id: str | None,
    runtime: ToolRuntime | None,
    config: RunnableConfig | None,
    injections: list[Injection],
    context_keys: ContextKeys | None,
    tool: str = "",
) -> ToolContext:
    """The :class:`ToolContext` of one call made from LangChain or LangGraph.

    Inside a graph run the context's client is the person behind the run: a tool's
    ``context.elicit(...)`` pauses the run with an interrupt (:mod:`adapters.langchain.asking`),
    and its progress and log messages are streamed as custom events
    (:mod:`adapters.langchain.stream_events`).

    Args:
        tool_call_id: The model's tool-call id, if known.
        runtime: The ``ToolRuntime`` LangGraph built for the call, if any.
        config: The call's ``RunnableConfig``.
        injections: The tool's LangGraph-injected parameters.
        context_keys: Which caller values to copy into ``ToolContext.values``.
        tool: The tool's name, shown with its questions.
    """
    configurable = (config or {}).get("configurable") or {}
    if runtime is not None and not configurable:
        configurable = (runtime.config or {}).get("configurable") or {}
    runtime_context = runtime.context if runtime is not None else _graph_context(configurable)
    context = ToolContext(
        call_id=tool_call_id or "",
        values=context_values(context_keys, runtime_context, configurable),
        injected=injected_values(injections, runtime, tool_call_id),
    )
    if config is None or not in_graph(config):
        return context
    context.client = InterruptChannel(config, tool)
    return with_stream_events(context, config, tool)


def _graph_context(configurable: dict[str, Any]) -> Any:
    return getattr(graph_runtime(configurable), "context", None)


def _signature_holder(params: dict[str, Any]) -> Any:
    """A function whose annotations tell LangGraph's ToolNode what to inject."""

    def holder(**kwargs: Any) -> None:
        """Never called; only its annotations are read."""

    holder.__annotations__ = dict(params)
    return holder


class RegistryTool(BaseTool):
    """A registry tool as a LangChain tool (works in ``ToolNode``, agents and ``bind_tools``).

    Build them with :func:`to_langchain_tools`. ``invoke`` and ``ainvoke`` both work, whether
    the tool behind is sync, async or remote. Invoked with a ``ToolCall`` it returns a
    ``ToolMessage`` (the structured value, or the error details, in ``artifact``); invoked
    with plain arguments it returns the text (or content blocks) the model would read.

    Attributes:
        registry: The registry the calls go through.
        context_keys: Caller values copied into ``ToolContext.values``.
        policy: A policy for these calls instead of the registry's.
        options: :class:`~toolkit.CallOptions` for every call of this tool (timeout, record
            hook…); the call's own context, id and approver are set per call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    registry: Any = Field(exclude=True)
    context_keys: Any = None
    options: Any = Field(default=None, exclude=True)
    func: Any = Field(default=None, exclude=True)
    injections: list[Injection] = Field(default_factory=list, exclude=True)
    runtime_param: str = _RUNTIME_PARAM

    @classmethod
    def from_tool(
        cls,
        registry: ToolRegistry,
        tool: Tool,
        *,
        context_keys: ContextKeys | None = None,
        options: CallOptions | None = None,
    ) -> RegistryTool:
        """Wrap ``tool`` (registered in ``registry``) for LangChain."""
        spec = tool.spec
        injections = find_injections(tool)
        runtime_param = next((i.param for i in injections if i.kind == "runtime"), _RUNTIME_PARAM)
        declared = {i.param: i.hint for i in injections}
        declared.setdefault(runtime_param, ToolRuntime)
        schema = {k: v for k, v in spec.input_schema.items() if k != "$schema"}
        return cls(
            name=spec.name,
            description=spec.description or spec.name,
            args_schema=schema,
            registry=registry,
            context_keys=context_keys,
            options=options,
            func=_signature_holder(declared),
            injections=injections,
            runtime_param=runtime_param,
            metadata={"source": spec.source} if spec.source else None,
        )

    @functools.cached_property
    def _injected_args_keys(self) -> frozenset[str]:  # type: ignore[override]
        return frozenset({self.runtime_param, *(i.param for i in self.injections)})

    # -- entry points: remember the tool-call id for the call ------------------------------
    def run(self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kw: Any) -> Any:
        """LangChain's ``run``, keeping the tool-call id for the registry call."""
        token = _tool_call_id.set(tool_call_id)
        try:
            return super().run(tool_input, *args, tool_call_id=tool_call_id, **kw)
        finally:
            _tool_call_id.reset(token)

    async def arun(
        self, tool_input: Any, *args: Any, tool_call_id: str | None = None, **kw: Any
    ) -> Any:
        """LangChain's ``arun``, keeping the tool-call id for the registry call."""
        token = _tool_call_id.set(tool_call_id)
        try:
            return await super().arun(tool_input, *args, tool_call_id=tool_call_id, **kw)
        finally:
            _tool_call_id.reset(token)

    # -- the call --------------------------------------------------------------------------
    def _prepare(
        self, config: RunnableConfig | None, kwargs: dict[str, Any]
    ) -> tuple[dict[str, Any], CallOptions]:
        runtime = kwargs.pop(self.runtime_param, None)
        for inj in self.injections:
            kwargs.pop(inj.param, None)
        call_id = _tool_call_id.get()
        context = build_context(
            tool_call_id=call_id,
            runtime=runtime if isinstance(runtime, ToolRuntime) else None,
            config=config,
            injections=self.injections,
            context_keys=self.context_keys,
            tool=self.name,
        )
        options = call_options(config, context=context, call_id=call_id, base=self.options)
        return kwargs, options

    def _answer(self, result: ToolResult) -> ToolMessage | str | list[Any]:
        call_id = _tool_call_id.get()
        if call_id is None:
            return result_content(result)
        return to_tool_message(result, call_id, self.name)

    def _run(self, config: RunnableConfig, **kwargs: Any) -> Any:
        arguments, options = self._prepare(config, kwargs)
        return self._answer(self.registry.call_sync(self.name, arguments, options=options))

    async def _arun(self, config: RunnableConfig, **kwargs: Any) -> Any:
        arguments, options = self._prepare(config, kwargs)
        return self._answer(await self.registry.call(self.name, arguments, options=options))


def to_langchain_tools(
    registry: ToolRegistry,
    *,
    names: Collection[str] | None = None,
    tags: Collection[str] | None = None,
    context_keys: ContextKeys | None = None,
    options: CallOptions | None = None,
) -> list[RegistryTool]:
    """The registry's tools as LangChain tools.

    Args:
        registry: Where the tools live and every call goes.
        names: Only these tools (unknown names raise ``KeyError``).
        tags: Only tools carrying at least one of these tags.
        context_keys: Caller values for ``ToolContext.values``, picked from the graph's
            runtime context, then ``config["configurable"]``: names, or
            ``{context_key: source_key}``. Nothing else from the runtime is passed on.
        options: :class:`~toolkit.CallOptions` for every call (a policy instead of the
            registry's, a timeout, a record hook…).

    Returns:
        One :class:`RegistryTool` per tool, in registry order.
    """
    selected = registry.filter(names=names, tags=tags) if names or tags else registry
    return [
        RegistryTool.from_tool(registry, tool, context_keys=context_keys, options=options)
        for tool in selected
    ]
