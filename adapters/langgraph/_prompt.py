"""The agent's system prompt, filled per run from the run's state and context.

``build_agent(system_prompt="You serve tenant {tenant}.")``: each ``{name}`` is filled at every
model call from, in order, the graph state (a key other than ``messages``), the run's context
(``context=`` of ``invoke``: a mapping or an object's attribute) and ``config["configurable"]``.
``{{`` and ``}}`` stand for literal braces; any other brace (JSON in a prompt) is left as it is.
A name found nowhere stops the run with :class:`PromptValueMissing`, which names it and where
it was looked for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from adapters.langchain.graph_config import configurable, graph_runtime
from toolkit import ErrorCode

__all__ = ["PromptValueMissing", "SystemPrompt"]

_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MISSING = object()


class PromptValueMissing(KeyError):
    """The system prompt names a value that neither the state nor the run's context holds.

    Attributes:
        name: The missing name.
        code: ``ErrorCode.NOT_FOUND``.
    """

    code = ErrorCode.NOT_FOUND

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            f"The agent's system_prompt uses {{{name}}}, but this run has no value for "
            f"{name!r}: looked in the graph state, the run's context (invoke(..., context=...)) "
            f"and config['configurable']. Pass {name!r} in one of them, or write {{{{{name}}}}} "
            "for literal braces."
        )

    def __str__(self) -> str:
        return str(self.args[0])


class SystemPrompt:
    """A system prompt, filled per run when it names values.

    Args:
        text: The prompt, with ``{name}`` fields.
    """

    def __init__(self, text: str | None) -> None:
        self.text = text or ""
        self.fields = {m.group(1) for m in _FIELD.finditer(self.text) if m.group(1)}
        self.escaped = "{{" in self.text or "}}" in self.text

    def render(self, state: Mapping[str, Any], config: RunnableConfig | None) -> str:
        """The prompt for this model call.

        Raises:
            PromptValueMissing: A ``{name}`` has no value in this run.
        """
        if not self.fields and not self.escaped:
            return self.text
        context = getattr(graph_runtime(config), "context", None)
        config_values = configurable(config)

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if name is None:
                return match.group(0)[0]
            value = _lookup(name, state, context, config_values)
            if value is _MISSING:
                raise PromptValueMissing(name)
            return str(value)

        return _FIELD.sub(fill, self.text)


def _lookup(name: str, state: Mapping[str, Any], context: Any, config: Mapping[str, Any]) -> Any:
    if name != "messages" and name in state:
        return state[name]
    if isinstance(context, Mapping):
        if name in context:
            return context[name]
    elif context is not None and not name.startswith("_"):
        value = getattr(context, name, _MISSING)
        if value is not _MISSING:
            return value
    return config.get(name, _MISSING) if not name.startswith("_") else _MISSING
