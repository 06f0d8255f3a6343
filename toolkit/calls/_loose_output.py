"""A finished call whose return value breaks the tool's output schema: error or warning.

The function tool already gave the model the value as plain JSON, without the structured copy
(:attr:`~toolkit.result.ToolResult.output_mismatch` says why). Here the call path decides: a
strict tool raises the mismatch, which then fails the call like any error the tool raises; any
other tool's call succeeds, and a warning names the tool, the annotation and the first mismatch
once per tool.
"""

from __future__ import annotations

import logging

from toolkit.result import ToolResult
from toolkit.schema._serialize import first_mismatch
from toolkit.tool import Tool

log = logging.getLogger("toolkit.calls")


def loose_output(tool: Tool, result: ToolResult, strict_default: bool, warned: set[str]) -> None:
    """Raise ``result``'s mismatch for a strict tool; else warn, once per tool name.

    Raises:
        ToolError: ``EXECUTION_ERROR``, when the tool's ``strict_output`` (or, unset, the
            registry's ``strict_default``) is on.
    """
    mismatch = result.output_mismatch
    if mismatch is None:
        return
    strict = tool.spec.options.strict_output
    if strict or (strict is None and strict_default):
        raise mismatch
    if tool.name in warned:
        return
    warned.add(tool.name)
    log.warning(
        "tool %s returned a value that does not match its declared return type %s (first "
        "mismatch: %s); the model got the value as plain JSON, without a structured result. "
        "Fix the annotation, or use @mcp_tool(strict_output=True) to make such values "
        "errors. (Shown once per tool.)",
        tool.name,
        mismatch.details.get("expected", "?"),
        first_mismatch(mismatch),
    )
