"""What a call returns: :class:`ToolResult`, its content blocks and its :class:`CallRecord`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from toolkit.errors import ErrorCode, ToolError

if TYPE_CHECKING:
    from toolkit.results.budget import ResultCut

__all__ = [
    "AudioContent",
    "CallRecord",
    "Content",
    "ImageContent",
    "ResourceContent",
    "TextContent",
    "ToolResult",
]


@dataclass(frozen=True, slots=True)
class TextContent:
    """A block of text."""

    text: str
    type: Literal["text"] = "text"
    #: Who the block is for (``"user"``, ``"assistant"``); empty: everyone.
    audience: tuple[str, ...] = ()
    #: How important the block is, from 0 (optional) to 1 (required); ``None``: unsaid.
    priority: float | None = None


@dataclass(frozen=True, slots=True)
class ImageContent:
    """An image, base64-encoded."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"
    #: Who the block is for (``"user"``, ``"assistant"``); empty: everyone.
    audience: tuple[str, ...] = ()
    #: How important the block is, from 0 (optional) to 1 (required); ``None``: unsaid.
    priority: float | None = None


@dataclass(frozen=True, slots=True)
class AudioContent:
    """Audio, base64-encoded."""

    data: str
    mime_type: str
    type: Literal["audio"] = "audio"
    #: Who the block is for (``"user"``, ``"assistant"``); empty: everyone.
    audience: tuple[str, ...] = ()
    #: How important the block is, from 0 (optional) to 1 (required); ``None``: unsaid.
    priority: float | None = None


@dataclass(frozen=True, slots=True)
class ResourceContent:
    """A resource: embedded (``text`` or base64 ``blob``) or linked (``uri`` only)."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None
    name: str | None = None
    type: Literal["resource"] = "resource"
    #: What a linked resource holds (a resource link's ``description``).
    description: str | None = None
    #: Who the block is for (``"user"``, ``"assistant"``); empty: everyone.
    audience: tuple[str, ...] = ()
    #: How important the block is, from 0 (optional) to 1 (required); ``None``: unsaid.
    priority: float | None = None


Content = TextContent | ImageContent | AudioContent | ResourceContent


@dataclass(slots=True, repr=False)
class ToolResult:
    """The outcome of one tool call, success or failure.

    Attributes:
        content: The text the model reads (for a failure: the processor's message).
        structured: The JSON value of a structured result, or ``None``.
        is_error: Whether the call failed.
        error: The failure, with its code, when ``is_error``.
        blocks: Content blocks beyond the text (images, audio, resources); text blocks too
            when a remote tool sent several.
        tool: The name of the tool that was called.
        call_id: The id of the call (the model's tool-call id when there is one).
        record: The call record, when the call went through the invoker.
        output_mismatch: For a finished call whose return value breaks the tool's declared
            output schema: the error a strict tool reports (its ``details`` hold the expected
            type and the mismatches). The call still succeeded: ``content`` has the value as
            plain JSON text and ``structured`` is ``None``.
        cut: How the result was cut to fit the model's budget (the full text is kept for
            ``read_result``), or ``None`` when the model reads it whole.
    """

    content: str
    structured: Any = None
    is_error: bool = False
    error: ToolError | None = None
    blocks: list[Content] = field(default_factory=list)
    tool: str = ""
    call_id: str = ""
    record: CallRecord | None = None
    output_mismatch: ToolError | None = None
    cut: ResultCut | None = None

    @property
    def code(self) -> ErrorCode | None:
        """The error code, or ``None`` on success."""
        return self.error.code if self.error else None

    @classmethod
    def failure(cls, error: ToolError, *, tool: str = "", call_id: str = "") -> ToolResult:
        """A failed result carrying ``error``'s message as its content."""
        return cls(content=error.message, is_error=True, error=error, tool=tool, call_id=call_id)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (for logs, the CLI and notebooks)."""
        out: dict[str, Any] = {
            "tool": self.tool,
            "is_error": self.is_error,
            "content": self.content,
        }
        if self.structured is not None:
            out["structured"] = self.structured
        if self.error is not None:
            out["error"] = self.error.to_dict()
        if self.output_mismatch is not None:
            out["output_mismatch"] = self.output_mismatch.to_dict()
        if self.cut is not None:
            out["cut"] = {"full_size": self.cut.full_size, "shown_size": self.cut.shown_size}
        return out

    def __repr__(self) -> str:
        fields = ("content", "structured", "is_error", "error", "blocks", "tool", "call_id")
        parts = []
        for name in fields:
            try:
                parts.append(f"{name}={getattr(self, name)!r}")
            except (ValueError, RecursionError):  # e.g. an integer past the digit limit
                parts.append(f"{name}=<cannot be shown>")
        return f"ToolResult({', '.join(parts)})"

    def _repr_html_(self) -> str:
        from toolkit.views._html import error_html, result_html

        try:
            return result_html(self)
        except Exception as exc:
            return error_html(self.tool or "result", exc)


@dataclass(frozen=True, slots=True, init=False)
class CallRecord:
    """One call as the audit trail sees it (secrets already redacted).

    Attributes:
        call_id: The call's id; error messages carry it as a correlation id.
        tool: The tool name asked for.
        arguments: The arguments, with secret values replaced by ``"***"``.
        outcome: ``"ok"``, ``"error"`` or ``"raised"``.
        code: The error code of a failure.
        duration_ms: Wall time of the whole call, retries included, and time spent waiting
            for a policy's or a person's approval left out.
        attempts: How many times the tool ran.
        decision: The policy's decision (``"allow"``, ``"deny"``, ``"approved"``, ``"rejected"``,
            ``"edited"``).
        started_at: POSIX timestamp of the start.
        output_mismatch: The first place where the return value broke the declared output
            schema (``"details.city: Input should be a valid string"``); the call succeeded
            and the model got the value without a structured copy. ``None`` otherwise.
        answered_by: The middleware that answered (or failed) instead of the tool, by name
            (``"budget"`` for a run's budget or loop check); ``None`` when the tool ran.
        full_size: Characters of the full result when it was cut to fit the model's budget
            (the model read less; the full text was kept for ``read_result``); ``None`` when
            the model read it whole.
        caller: Who made the call (``CallOptions.caller``), if the caller said.
        peer: The network address the call came from (``CallOptions.peer``), if any.
    """

    call_id: str
    tool: str
    arguments: Any
    outcome: Literal["ok", "error", "raised"]
    code: ErrorCode | None
    duration_ms: float
    attempts: int
    decision: str = "allow"
    started_at: float = 0.0
    output_mismatch: str | None = None
    answered_by: str | None = None
    full_size: int | None = None

    @property
    def was_cut(self) -> bool:
        """Whether the result was cut to fit the model's budget."""
        return self.full_size is not None

    caller: str | None = None
    peer: str | None = None

    def __init__(
        self,
        call_id: str,
        tool: str,
        arguments: Any,
        outcome: Literal["ok", "error", "raised"],
        code: ErrorCode | None,
        duration_ms: float,
        attempts: int,
        decision: str = "allow",
        started_at: float = 0.0,
        output_mismatch: str | None = None,
        answered_by: str | None = None,
        full_size: int | None = None,
        caller: str | None = None,
        peer: str | None = None,
    ) -> None:
        # Every call makes a record. The generated __init__ of a frozen dataclass sets each
        # field through object.__setattr__; the slots' own setters do the same for a third less
        # of the whole record's cost (which was a fifth of a trivial call's pipeline).
        put = _RECORD_SLOTS
        put[0](self, call_id)
        put[1](self, tool)
        put[2](self, arguments)
        put[3](self, outcome)
        put[4](self, code)
        put[5](self, duration_ms)
        put[6](self, attempts)
        put[7](self, decision)
        put[8](self, started_at)
        put[9](self, output_mismatch)
        put[10](self, answered_by)
        put[11](self, full_size)
        put[12](self, caller)
        put[13](self, peer)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        out = {
            "call_id": self.call_id,
            "tool": self.tool,
            "arguments": self.arguments,
            "outcome": self.outcome,
            "code": self.code.value if self.code else None,
            "duration_ms": round(self.duration_ms, 3),
            "attempts": self.attempts,
            "decision": self.decision,
            "started_at": self.started_at,
        }
        if self.output_mismatch is not None:
            out["output_mismatch"] = self.output_mismatch
        if self.answered_by is not None:
            out["answered_by"] = self.answered_by
        if self.full_size is not None:
            out["full_size"] = self.full_size
        if self.caller is not None:
            out["caller"] = self.caller
        if self.peer is not None:
            out["peer"] = self.peer
        return out

    def __str__(self) -> str:
        try:
            return json.dumps(self.to_dict(), default=str)
        except (ValueError, RecursionError):
            return f"CallRecord({self.call_id}, {self.tool}, {self.outcome})"


#: The setters of :class:`CallRecord`'s slots, in the order of its fields (its ``__init__``).
_RECORD_SLOTS: tuple[Callable[[CallRecord, Any], None], ...] = tuple(
    vars(CallRecord)[f.name].__set__ for f in fields(CallRecord)
)
