"""The tool label of call metrics.

Rule: a metric labels a call with its tool's name only when the registry has that tool (a
resource read or a prompt get, recorded as ``resource:NAME`` / ``prompt:NAME``, when the registry
has that resource or prompt). Every other name (one a model or a client made up) shares the label
``_unknown``, so made-up names cannot add series to a scrape or a metrics backend; spans still
carry the name that was sent.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from toolkit.errors import ErrorCode
from toolkit.result import CallRecord

__all__ = ["UNKNOWN_TOOL", "tool_label"]

#: The one label of every call to a tool the registry does not have.
UNKNOWN_TOOL = "_unknown"


def tool_label(record: CallRecord, registry: Container[str] | None) -> str:
    """``record.tool`` if ``registry`` (a :class:`~toolkit.ToolRegistry`) has that tool (or,
    without a registry, if it was found)."""
    if record.code is ErrorCode.TOOL_NOT_FOUND:
        return UNKNOWN_TOOL
    if registry is None or record.tool in registry or _served(registry, record.tool):
        return record.tool
    return UNKNOWN_TOOL


def _served(registry: Any, label: str) -> bool:
    kind, _, name = label.partition(":")
    if kind == "prompt":
        prompts = getattr(registry, "prompts", None)
        return prompts is not None and prompts.get(name) is not None
    if kind == "resource":
        resources = getattr(registry, "resources", None)
        return resources is not None and any(
            item.name == name for item in (*resources.resources(), *resources.templates())
        )
    return False
