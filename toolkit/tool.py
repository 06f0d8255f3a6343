"""The :class:`Tool` protocol every source implements, and argument-validation failures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from toolkit.context import ToolContext
from toolkit.result import ToolResult
from toolkit.spec import ToolSpec

__all__ = ["ArgumentProblem", "InvalidArguments", "Tool"]

ProblemKind = Literal["missing", "type", "value", "unknown", "injected", "other"]


@dataclass(frozen=True, slots=True)
class ArgumentProblem:
    """One thing wrong with the arguments of a call.

    Attributes:
        param: Dotted path of the parameter (``"address.zip"``, ``"items.2"``), ``""`` for the
            arguments as a whole.
        kind: What is wrong.
        message: The validator's words for it.
    """

    param: str
    kind: ProblemKind
    message: str


class InvalidArguments(Exception):
    """Raised by :meth:`Tool.validate`; the invoker turns it into an ``INVALID_PARAMS`` message."""

    def __init__(self, problems: list[ArgumentProblem]) -> None:
        super().__init__("; ".join(f"{p.param}: {p.message}" for p in problems))
        self.problems = problems


@runtime_checkable
class Tool(Protocol):
    """A tool, wherever it comes from: a local function, a remote MCP tool, an HTTP endpoint.

    The invoker checks unknown and injected parameter names against ``spec`` itself; a tool's
    :meth:`validate` checks the rest (types, ranges, required) and may coerce values.
    """

    @property
    def name(self) -> str:
        """The registry name."""
        ...

    @property
    def spec(self) -> ToolSpec:
        """The spec every sink sees."""
        ...

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate (and coerce) arguments, or raise :class:`InvalidArguments`."""
        ...

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run with validated arguments. Failures are raised; the invoker processes them."""
        ...

    def renamed(self, name: str) -> Tool:
        """The same tool under another registry name (a prefix, a namespace)."""
        ...
