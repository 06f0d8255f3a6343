"""What the model reads after its ACTION block: observations."""

from __future__ import annotations

import json

from toolkit import ToolResult

__all__ = ["format_observation", "malformed_observation"]


def _result_text(result: ToolResult) -> str:
    if result.content:
        return result.content
    if result.structured is not None:
        return json.dumps(result.structured, ensure_ascii=False, default=str)
    return "(no output)"


def format_observation(
    outcome: ToolResult | str, tool: str = "", *, code: str = "EXECUTION_ERROR"
) -> str:
    """The observation line for one call.

    Args:
        outcome: The call's ``ToolResult``, or the text of an error that kept it from running.
        tool: The tool's name (defaults to the result's own).
        code: The error code for an error given as text.

    Returns:
        ``Observation: Tool <name> executed successfully. Result: <result>`` for a success,
        ``Observation: Error [<CODE>] <message>`` for a failure (the registry's own message).
    """
    if isinstance(outcome, str):
        return _error(outcome, code)
    if outcome.is_error:
        return _error(outcome.content, outcome.code.value if outcome.code is not None else code)
    name = tool or outcome.tool
    return f"Observation: Tool {name} executed successfully. Result: {_result_text(outcome)}"


def _error(message: str, code: str) -> str:
    # The registry's messages already start with "Error [CODE]"; it is not said twice.
    if message.startswith("Error ["):
        return f"Observation: {message}"
    return f"Observation: Error [{code}] {message}"


def success_observation(tool: str, text: str) -> str:
    """The observation for a success known only by its text (a ``ToolMessage``)."""
    return f"Observation: Tool {tool} executed successfully. Result: {text}"


def malformed_observation(detail: str) -> str:
    """The observation for an ACTION block that could not be read (nothing ran)."""
    return (
        f"Observation: Malformed XML in ACTION block: {detail}. Nothing was run. Write the "
        "ACTION block again: close every tag, and put values holding < or & inside "
        "<![CDATA[...]]>."
    )
