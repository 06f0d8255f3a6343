"""Agents over big registries: each model call is offered a few tools, and a search tool.

With ``build_agent(model, registry, tool_search=5)`` every model call is offered

* the ``k`` tools that best match the conversation so far (``registry.search`` over the last
  few user and assistant messages),
* every tool already called in the conversation,
* the tools that the model's own ``search_tools`` calls found (from the next step on),
* and ``search_tools`` itself,

instead of every tool of the registry. A call to a registered tool that was not offered still
runs through the registry, under the same policy as any other call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from toolkit import ToolRegistry, mcp_tool
from toolkit.calls.spec import is_valid_name
from toolkit.results.reader import READ_RESULT

__all__ = ["ToolSearch", "search_registry"]


@dataclass(frozen=True, slots=True)
class ToolSearch:
    """How an agent picks the tools it offers the model (``build_agent(tool_search=...)``).

    Attributes:
        k: Tools offered from the conversation at each model call.
        found: Tools one ``search_tools`` call returns (and then offers).
        window: How many of the latest user and assistant messages make the query.
        tool_name: The name of the search tool the model sees.
    """

    k: int = 5
    found: int = 5
    window: int = 4
    tool_name: str = "search_tools"

    def __post_init__(self) -> None:
        for field in ("k", "found", "window"):
            if getattr(self, field) < 0:
                raise ValueError(f"ToolSearch.{field} must be 0 or more.")
        if not is_valid_name(self.tool_name):
            raise ValueError(f"ToolSearch.tool_name {self.tool_name!r} is not a valid tool name.")

    @classmethod
    def of(cls, value: int | ToolSearch | None) -> ToolSearch | None:
        """An int is ``ToolSearch(k=value)``; ``None`` turns tool search off."""
        if value is None or isinstance(value, ToolSearch):
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"tool_search takes an int or a ToolSearch, got {value!r}.")
        return cls(k=value)

    def offered(self, registry: ToolRegistry, messages: Sequence[BaseMessage]) -> list[str]:
        """The names of the registry's tools to offer for ``messages``, in a stable order."""
        names: dict[str, None] = {}
        for message in messages:  # tools already used, and what the model searched for
            if not isinstance(message, AIMessage):
                continue
            for call in message.tool_calls:
                if call["name"] == self.tool_name and call["name"] not in registry:
                    query = (call.get("args") or {}).get("query")
                    if isinstance(query, str):
                        names.update((t.name, None) for t in registry.search(query, k=self.found))
                elif call["name"] in registry:
                    names[call["name"]] = None
        if self.k:
            query = _recent_text(messages, self.window)
            names.update((t.name, None) for t in registry.search(query, k=self.k))
        if READ_RESULT in registry:  # a result was cut: its reader needs no search
            names[READ_RESULT] = None
        return list(names)


def search_registry(registry: ToolRegistry, options: ToolSearch) -> ToolRegistry:
    """A registry holding only the search tool, which searches ``registry``.

    Raises:
        ValueError: ``registry`` already has a tool of that name.
    """
    if options.tool_name in registry:
        raise ValueError(
            f"The registry already has a tool named {options.tool_name!r}; give the search "
            "tool another name: ToolSearch(tool_name='find_tools')."
        )

    def search_tools(query: str) -> str:
        """Find tools for a task among every available tool.

        The tools found can be called from your next step on. Describe the task in a few
        words, e.g. "refund a card payment" or "weather forecast".

        Args:
            query: What you need to do, in a few words.
        """
        found = registry.search(query, k=options.found)
        if not found:
            return f"No tool matches {query!r}. Try other words."
        return json.dumps(
            [{"name": t.name, "description": t.spec.description} for t in found],
            ensure_ascii=False,
        )

    meta = ToolRegistry()
    meta.register(mcp_tool(read_only=True)(search_tools), name=options.tool_name)
    return meta


def _recent_text(messages: Sequence[BaseMessage], window: int) -> str:
    parts: list[str] = []
    for message in reversed(messages):
        if len(parts) >= window:
            break
        if isinstance(message, HumanMessage | AIMessage):
            text = _text(message.content)
            if text.strip():
                parts.append(text)
    return "\n".join(reversed(parts))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str | dict)
        )
    return ""
