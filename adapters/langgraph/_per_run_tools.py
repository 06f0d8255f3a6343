"""The tools a run offers its model: those its caller may see, as each tool prepares them.

A model is offered only what its caller may call. At each model call the agent asks the
policy (the agent's options', else the registry's), with the run's caller context
(the same ``ToolContext.values`` its tool calls get) and no arguments, which tools that caller
may see, as the MCP server does for its clients (``registry.visible_names``): a denied tool is
not offered, costs no tokens and invites no denied call. A tool's ``prepare`` hook
(``@mcp_tool(prepare=fn)``, ``fn(spec, context) -> spec | None``) then decides for this run
whether it is offered (``None`` hides it) and with which description and input schema. A hook
that raises hides its tool, with a warning.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from adapters.langchain.injection import ContextKeys
from adapters.langchain.tool import RegistryTool, build_context, to_langchain_tools
from toolkit import CallOptions, ToolContext, ToolRegistry, ToolSpec
from toolkit.calls.runtime import run_sync

__all__ = ["Choice", "PerRunTools"]

log = logging.getLogger("adapters.langgraph")


@dataclass(frozen=True, slots=True)
class Choice:
    """What one model call offers.

    Attributes:
        names: The tools to bind (``None``: every tool, unchanged: the shared binding).
        tools: LangChain tools with a prepared spec, to bind as they are (``None``: none
            was changed, so ``names`` can use the cached binding).
    """

    names: tuple[str, ...] | None = None
    tools: list[RegistryTool] | None = None


class PerRunTools:
    """Chooses each model call's tools for the caller of the run.

    Args:
        registry: The agent's registry.
        options: The agent's call options (their policy, if any, else the registry's).
        context_keys: Which caller values the tools' context gets.
        extra: The agent's own tools (the tool search), offered with prepared ones.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        options: CallOptions | None,
        context_keys: ContextKeys | None,
        extra: ToolRegistry | None = None,
    ) -> None:
        self.registry = registry
        self.extra = extra
        self.policy = options.policy if options is not None else None
        self.context_keys = context_keys

    def choose(self, offered: Sequence[str] | None, config: RunnableConfig) -> Choice:
        """:meth:`achoose` for a sync run."""
        return run_sync(self.achoose, offered, config)

    async def achoose(self, offered: Sequence[str] | None, config: RunnableConfig) -> Choice:
        """The tools for this call: ``offered`` (or all) that the caller sees, prepared."""
        registry = self.registry
        context = build_context(
            tool_call_id=None,
            runtime=None,
            config=config,
            injections=[],
            context_keys=self.context_keys,
        )
        visible = await registry.visible_names(context, policy=self.policy)
        seen = set(visible)
        every = offered is None
        candidates = registry.names() if offered is None else offered
        names = [n for n in candidates if n in seen or n not in registry]
        prepared: dict[str, ToolSpec] = {}
        kept: list[str] = []
        for name in names:
            spec = registry.get(name).spec if name in registry else None
            hook = spec.options.prepare if spec is not None else None
            if spec is None or hook is None:
                kept.append(name)
                continue
            ready = await _prepared(hook, spec, context)
            if ready is None:
                continue
            kept.append(name)
            if ready != spec:
                prepared[name] = ready
        if not prepared:
            if every and len(kept) == len(registry.names()):
                return Choice()
            return Choice(names=tuple(kept))
        return Choice(names=tuple(kept), tools=self._tools(kept, prepared))

    def _tools(self, names: list[str], prepared: dict[str, ToolSpec]) -> list[RegistryTool]:
        registry = self.registry
        tools = []
        for name in names:
            if name not in registry:
                continue
            tool = RegistryTool.from_tool(
                registry, registry.get(name), context_keys=self.context_keys
            )
            spec = prepared.get(name)
            if spec is not None:
                schema = {k: v for k, v in spec.input_schema.items() if k != "$schema"}
                tool = tool.model_copy(
                    update={"description": spec.description or name, "args_schema": schema}
                )
            tools.append(tool)
        if self.extra is not None:
            tools += to_langchain_tools(self.extra, context_keys=self.context_keys)
        return tools


async def _prepared(hook: Any, spec: ToolSpec, context: ToolContext) -> ToolSpec | None:
    try:
        ready = hook(spec, context)
        if inspect.isawaitable(ready):
            ready = await ready
    except Exception as exc:
        log.warning(
            "The prepare hook of tool %s raised %s: %s; the tool is not offered in this run. "
            "Make the hook return the spec to offer, or None to hide the tool.",
            spec.name,
            type(exc).__name__,
            exc,
        )
        return None
    if ready is not None and not isinstance(ready, ToolSpec):
        log.warning(
            "The prepare hook of tool %s returned %s, not a ToolSpec or None; the tool is "
            "offered unchanged. Return dataclasses.replace(spec, ...) or None.",
            spec.name,
            type(ready).__name__,
        )
        return spec
    if ready is not None and ready.name != spec.name:
        log.warning(
            "The prepare hook of tool %s renamed it to %s; a run cannot rename a tool, so it "
            "keeps its name.",
            spec.name,
            ready.name,
        )
        return ready.renamed(spec.name)
    return ready
