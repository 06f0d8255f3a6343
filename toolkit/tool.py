"""The :class:`Tool` protocol every source implements, and argument-validation failures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from toolkit.calls.spec import ToolSpec
from toolkit.context import ToolContext
from toolkit.result import ToolResult

__all__ = [
    "ArgumentProblem",
    "InlineTool",
    "InvalidArguments",
    "Tool",
    "ToolRuns",
    "runs_inline",
]

#: How a tool runs, as the tool says through :attr:`Tool.runs`:
#: ``"sync"`` a blocking local function (the sync entry point runs it in the caller's thread
#: with :meth:`InlineTool.call_inline`, the async one in a worker thread); ``"async"`` a local
#: coroutine on the caller's loop; ``"remote"`` a tool that waits on a peer and keeps its own
#: deadlines (the registry's default timeout does not apply; the call's and the tool's do).
#: A ``"remote"`` tool that can also wait for its peer in the calling thread, keeping its own
#: deadlines there too, says so with a true ``waits_inline`` attribute and implements
#: :meth:`InlineTool.call_inline`: the sync entry point then runs it as it runs a local sync
#: function (see :func:`runs_inline`).
ToolRuns = Literal["sync", "async", "remote"]

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

    @property
    def runs(self) -> ToolRuns:
        """How the tool runs (see :data:`ToolRuns`); the invoker asks this, never the type."""
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


@runtime_checkable
class InlineTool(Tool, Protocol):
    """A tool whose :attr:`~Tool.runs` is ``"sync"``: it can run in the calling thread."""

    def call_inline(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Run right here, blocking, with validated arguments."""
        ...


def runs_inline(tool: Tool) -> bool:
    """Whether the sync entry point may run ``tool`` with :meth:`InlineTool.call_inline`.

    A local sync function may; so may a remote tool with a true ``waits_inline`` (it waits
    for its peer in the calling thread and keeps its own deadlines; see :data:`ToolRuns`).
    """
    runs = tool.runs
    return runs == "sync" or (runs == "remote" and getattr(tool, "waits_inline", False) is True)
