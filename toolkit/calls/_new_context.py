"""The :class:`~toolkit.ToolContext` of a call made without one, made the cheap way.

Calling the dataclass with keywords packs them into a dict and runs its generated
``__init__``; a call path that makes one context per call stores the fields directly instead.
"""

from __future__ import annotations

from toolkit.context import ToolContext

__all__ = ["new_context"]

_new = object.__new__


def new_context(tool: str, call_id: str) -> ToolContext:
    """``ToolContext(tool=tool, call_id=call_id)``: every other field at its default."""
    context: ToolContext = _new(ToolContext)
    context.tool = tool
    context.call_id = call_id
    context.attempt = 1
    context.values = {}
    context.injected = {}
    context.progress = None
    context.client = None
    context.remote_log = None
    return context
