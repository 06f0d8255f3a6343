"""A :class:`~toolkit.CallRecord` for every call, made the cheap way.

Calling a class with keywords packs them into a dict for its ``__init__``; calling a function
passes them as they are. The call path makes one record per call, so it calls
:func:`new_call_record`, which makes the same record as ``CallRecord(...)``.
"""

from __future__ import annotations

from typing import Any, Literal

from toolkit.errors import ErrorCode
from toolkit.result import CallRecord

__all__ = ["new_call_record"]

_new = object.__new__
_init = CallRecord.__init__


def new_call_record(
    *,
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
) -> CallRecord:
    """``CallRecord(...)`` with the same fields, without the class call's keyword dict."""
    record: CallRecord = _new(CallRecord)
    _init(
        record,
        call_id,
        tool,
        arguments,
        outcome,
        code,
        duration_ms,
        attempts,
        decision,
        started_at,
        output_mismatch,
        answered_by,
        full_size,
        caller,
        peer,
    )
    return record
