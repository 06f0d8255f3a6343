"""Stop at a tool (``return_direct``): its result ends the run as the final answer.

A tool marked ``@mcp_tool(return_direct=True)``, or named in ``build_agent(return_direct=[...])``,
ends the run once its call succeeded: the model is not called again, and the final assistant
message holds the tool's result (several such results of one turn, one after the other). A
failed call does not end the run: the model reads the error and may try again. The
``<ACTION>`` protocol's calls are the agent's calls, so they stop the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from toolkit import ToolRegistry

__all__ = ["DirectTools"]


class DirectTools:
    """Which tools end a run, and the answer a turn of their results gives.

    Args:
        registry: Where tools marked ``return_direct`` are looked up.
        names: More tools that end the run, named by the application.
    """

    def __init__(self, registry: ToolRegistry, names: Iterable[str] = ()) -> None:
        self.registry = registry
        self.names = frozenset(names)

    def ends(self, name: str | None) -> bool:
        """Whether a successful call of tool ``name`` ends the run."""
        if not name:
            return False
        if name in self.names:
            return True
        registry = self.registry
        return name in registry and registry.get(name).spec.options.return_direct

    def answer(self, messages: Sequence[BaseMessage]) -> AIMessage | None:
        """The final answer made of the last turn's results of such tools, or ``None``."""
        found: list[ToolMessage] = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            if message.status != "error" and self.ends(message.name):
                found.append(message)
        if not found:
            return None
        found.reverse()
        text = "\n\n".join(m.text for m in found)
        return AIMessage(content=text, response_metadata={"return_direct": [m.name for m in found]})
