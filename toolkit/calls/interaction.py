"""What a tool may ask of the client that called it: log lines, user input, model completions.

A sink that can reach its client (the MCP server) puts a :class:`ClientChannel` in the
:class:`~toolkit.ToolContext`; tools use ``context.log``, ``context.elicit`` and
``context.sample`` and never see the protocol.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = ["LOG_LEVELS", "ClientChannel", "Elicitation", "LogLevel", "SamplingMessage"]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

#: Log levels from least to most severe (syslog's, as MCP uses them).
LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)


@dataclass(frozen=True, slots=True)
class Elicitation:
    """The user's answer to :meth:`ToolContext.elicit`.

    Attributes:
        action: ``"accept"`` (``content`` holds the answer), ``"decline"`` or ``"cancel"``.
        content: The values the user entered, by field name (empty unless accepted).
    """

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        """Whether the user accepted and answered."""
        return self.action == "accept"


@dataclass(frozen=True, slots=True)
class SamplingMessage:
    """One message of a sampling request: ``role`` is ``"user"`` or ``"assistant"``."""

    role: Literal["user", "assistant"]
    text: str


class ClientChannel(Protocol):
    """The client of the current call, as the sink that received it can reach it."""

    async def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        """Send a log record to the client (dropped below the level it asked for)."""
        ...

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the user for input shaped by ``schema``; raises ``ToolError`` if not possible."""
        ...

    async def sample(
        self,
        messages: Sequence[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None,
        temperature: float | None,
    ) -> str:
        """Ask the client's model for a completion; raises ``ToolError`` if not possible."""
        ...
