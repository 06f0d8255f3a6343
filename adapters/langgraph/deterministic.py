"""Level 1 of tool calling: a graph node that calls one tool, no model involved."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig

from adapters.langchain.approval import call_options
from adapters.langchain.injection import ContextKeys
from adapters.langchain.tool import build_context
from adapters.langgraph._node import Node
from adapters.langgraph.templates import compile_arguments, scope_of
from toolkit import CallOptions
from toolkit.registry import ToolRegistry

__all__ = ["tool_node"]

Arguments = Mapping[str, Any] | Callable[[Any], Mapping[str, Any]] | None


def tool_node(
    registry: ToolRegistry,
    tool_name: str,
    arguments: Arguments = None,
    *,
    output_key: str = "tool_result",
    context_keys: ContextKeys | None = None,
    options: CallOptions | None = None,
) -> Runnable[Any, dict[str, Any]]:
    """A node that calls ``tool_name`` with arguments rendered from the state.

    Example::

        builder.add_node("lookup", tool_node(registry, "get_bin", {"code": "{order.bin}"}))

    Args:
        registry: Where the tool lives; the call goes through ``registry.call`` (validation,
            policy and approval, timeout, retries, processor).
        tool_name: The tool to call (checked now: an unknown name raises ``KeyError``).
        arguments: A dict of templates (see :mod:`adapters.langgraph.templates`) or a
            function ``state -> dict``.
        output_key: The state key that receives the :class:`~toolkit.ToolResult`.
        context_keys: Caller values for ``ToolContext.values``.
        options: :class:`~toolkit.CallOptions` for the call (a policy instead of the
            registry's, a timeout, an ``on_record`` hook...).

    Returns:
        A runnable to pass to ``StateGraph.add_node`` (sync and async).
    """
    registry.get(tool_name)
    render = arguments if callable(arguments) else compile_arguments(arguments or {})

    def prepare(state: Any, config: RunnableConfig) -> tuple[Any, CallOptions]:
        args = render(state) if callable(arguments) else render(scope_of(state))
        context = build_context(
            tool_call_id=None,
            runtime=None,
            config=config,
            injections=[],
            context_keys=context_keys,
            tool=tool_name,
        )
        return dict(args), call_options(config, context=context, call_id=None, base=options)

    def run(state: Any, config: RunnableConfig) -> dict[str, Any]:
        args, options = prepare(state, config)
        return {output_key: registry.call_sync(tool_name, args, options=options)}

    async def arun(state: Any, config: RunnableConfig) -> dict[str, Any]:
        args, options = prepare(state, config)
        return {output_key: await registry.call(tool_name, args, options=options)}

    return Node(tool_name, run, arun)
