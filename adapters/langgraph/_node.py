"""Graph nodes made of a sync and an async function of ``(input, config)``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig, ensure_config

__all__ = ["Node"]


class Node(Runnable[Any, dict[str, Any]]):
    """A node running ``func`` under ``invoke`` and ``afunc`` under ``ainvoke``.

    Lighter than ``RunnableLambda``, which inspects its functions' signatures and opens a
    callback run on every call: LangGraph already traces each node's task (with its name) and
    sets the config context, so a node adds nothing of its own, as LangGraph's nodes made from
    plain functions do not.

    Args:
        name: The node's name.
        func: ``(input, config) -> update``.
        afunc: ``async (input, config) -> update``.
    """

    def __init__(
        self,
        name: str,
        func: Callable[[Any, RunnableConfig], dict[str, Any]],
        afunc: Callable[[Any, RunnableConfig], Awaitable[dict[str, Any]]],
    ) -> None:
        self.name = name
        self._func = func
        self._afunc = afunc

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run the sync function."""
        return self._func(input, ensure_config(config))

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run the async function."""
        return await self._afunc(input, ensure_config(config))

    def __repr__(self) -> str:
        return f"Node({self.name!r})"
