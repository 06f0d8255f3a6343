"""Per-call context handed to tools, and the marker for injected parameters."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["Injected", "ProgressCallback", "ToolContext"]

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]


class _InjectedMarker:
    """Type of :data:`Injected`; a singleton."""

    _instance: _InjectedMarker | None = None

    def __new__(cls) -> _InjectedMarker:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Injected"


#: Mark a parameter as filled by the caller, never by the model: ``Annotated[str, Injected]``.
#: It is left out of every schema; the value comes from ``ToolContext.injected[name]`` (or
#: ``ToolContext.values[name]``), else the parameter's default.
Injected: Final = _InjectedMarker()


@dataclass(slots=True)
class ToolContext:
    """What the caller knows about a call that the model must not control.

    A tool receives it by declaring a parameter annotated ``ToolContext``; that parameter never
    appears in a schema.

    Attributes:
        tool: Name of the tool being called (set by the invoker).
        call_id: Id of this call (the model's tool-call id when there is one).
        attempt: 1 for the first attempt, 2 for the first retry, …
        values: Caller data such as tenant or user (from the graph config, the server request…).
        injected: Values for parameters marked ``Injected``, by parameter name.
        progress: Where :meth:`report_progress` sends updates (an MCP client, a UI), if anywhere.
    """

    tool: str = ""
    call_id: str = ""
    attempt: int = 1
    values: Mapping[str, Any] = field(default_factory=dict)
    injected: Mapping[str, Any] = field(default_factory=dict)
    progress: ProgressCallback | None = None

    def get(self, key: str, default: Any = None) -> Any:
        """A caller value by key, or ``default``."""
        return self.values.get(key, default)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress of a long call; a no-op when nobody listens."""
        if self.progress is not None:
            await self.progress(progress, total, message)
