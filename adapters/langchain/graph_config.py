"""Reading LangGraph's private config keys in one place.

LangGraph hands a running task its runtime and scratchpad under ``__pregel_*`` keys of
``config["configurable"]``. They are not a public API, so only this module reads them: if
LangGraph renames them, one place changes.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

__all__ = ["configurable", "graph_checkpointer", "graph_runtime", "in_graph"]

_RUNTIME = "__pregel_runtime"  # the task's Runtime (context, store, stream writer)
_SCRATCHPAD = "__pregel_scratchpad"  # present only for code running inside a graph task
_CHECKPOINTER = "__pregel_checkpointer"  # the task's checkpointer (None when there is none)


def configurable(config: RunnableConfig | None) -> dict[str, Any]:
    """``config["configurable"]``, or an empty dict."""
    return dict((config or {}).get("configurable") or {})


def graph_runtime(config: RunnableConfig | dict[str, Any] | None) -> Any:
    """The LangGraph ``Runtime`` of the running task, or ``None`` outside a graph.

    Args:
        config: A ``RunnableConfig``, or its ``configurable`` mapping.
    """
    if not config:
        return None
    inner = config.get("configurable")
    values = inner if isinstance(inner, dict) else config
    return values.get(_RUNTIME)


def in_graph(config: RunnableConfig | None) -> bool:
    """Whether ``config`` belongs to a running LangGraph task (so ``interrupt()`` works)."""
    return bool(config) and _SCRATCHPAD in ((config or {}).get("configurable") or {})


def graph_checkpointer(config: RunnableConfig | None) -> Any:
    """The checkpointer of the running graph task, or ``None`` (so an interrupt cannot resume)."""
    return configurable(config).get(_CHECKPOINTER)
