"""Error codes and the two exception types of the toolkit.

Two audiences, two types:

* :class:`ToolError` is raised at **call time**. Its message is written for the model that
  made the call and is passed to it verbatim; ``code`` and ``retryable`` are machine-readable.
* :class:`RegistrationError` is raised at **registration time**. Its message is written for the
  developer and names the function (and file) at fault and the fix.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = ["ErrorCode", "RegistrationError", "ToolError"]


class ErrorCode(StrEnum):
    """Stable codes carried by every failed :class:`~toolkit.ToolResult`."""

    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    """The model asked for a tool that is not in the registry."""
    INVALID_PARAMS = "INVALID_PARAMS"
    """Arguments are missing, unknown, of the wrong type or out of range."""
    PARSE_ERROR = "PARSE_ERROR"
    """Arguments are not JSON, or not a JSON object."""
    EXECUTION_ERROR = "EXECUTION_ERROR"
    """The tool ran and failed."""
    TIMEOUT = "TIMEOUT"
    """The tool did not finish within its timeout."""
    DENIED = "DENIED"
    """A policy or a human refused the call."""
    UNREACHABLE = "UNREACHABLE"
    """A remote tool's server could not be reached or went away."""
    AUTH_FAILED = "AUTH_FAILED"
    """A remote server refused our credentials."""
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    """A remote server answered something the protocol does not allow."""
    NOT_FOUND = "NOT_FOUND"
    """A resource or prompt that was asked for does not exist."""
    OVERLOADED = "OVERLOADED"
    """Too many earlier calls still hang past their timeout: nothing new is started for now."""
    BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
    """The run's budget (calls, time, model calls, tokens) is used up; the call did not run."""
    REPEATED_CALL = "REPEATED_CALL"
    """The same call was made too often in one run; the earlier result's gist is given."""
    RATE_LIMITED = "RATE_LIMITED"
    """Too many calls by this caller or of this tool; ``details["retry_after"]`` says when."""


#: Codes for which, by default, trying the same call again can help.
RETRYABLE_BY_DEFAULT: frozenset[ErrorCode] = frozenset({ErrorCode.TIMEOUT, ErrorCode.UNREACHABLE})


class ToolError(Exception):
    """A failure meant for the model.

    Raise it from business code when the model should read the message as it is::

        raise ToolError("Bin B-404 does not exist. Call list_bins to see valid bin codes.")

    Args:
        message: What went wrong and, ideally, what the model should do instead.
        code: The error code; ``EXECUTION_ERROR`` unless said otherwise.
        retryable: Whether repeating the same call can succeed (a busy backend: yes; a bin
            that does not exist: no). Defaults by code (``TIMEOUT``/``UNREACHABLE`` retry).
        details: Machine-readable data for logs and artifacts (never shown to the model).
    """

    def __init__(
        self,
        message: str,
        *,
        code: ErrorCode | str = ErrorCode.EXECUTION_ERROR,
        retryable: bool | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = ErrorCode(code)
        self.retryable = self.code in RETRYABLE_BY_DEFAULT if retryable is None else retryable
        self.details: dict[str, Any] = dict(details or {})

    def __repr__(self) -> str:
        return f"ToolError(code={self.code.value}, message={self.message!r})"

    def to_dict(self) -> dict[str, Any]:
        """The error as plain JSON data (code, message, retryable, details)."""
        return {
            "code": self.code.value,
            "message": self.message,
            "retryable": self.retryable,
            "details": self.details,
        }


class RegistrationError(ValueError):
    """A tool cannot be registered as it is; the message names the culprit and the fix."""
