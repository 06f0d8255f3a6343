"""What the model reads after its ACTION block: observations.

One rule for what a model reads of a tool's result, whichever way it calls tools: the text of
:func:`toolkit.calls.wire.model_content`, the same content a native ``ToolMessage`` carries
(:func:`adapters.langchain.messages.to_tool_message`). Blocks whose audience is only the user
never reach the model; an image or audio block is shown as ``[image]`` / ``[audio]``, as
:func:`message_text` shows a ``ToolMessage``'s blocks.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage

from adapters.action_xml._parse import clean_text
from toolkit import AudioContent, ImageContent, ResourceContent, TextContent, ToolResult
from toolkit.calls.wire import model_content, resource_text

__all__ = [
    "copied_observation",
    "format_observation",
    "malformed_observation",
    "message_text",
    "result_text",
    "tool_message_observation",
]


def result_text(result: ToolResult) -> str:
    """What the model reads of ``result``, as text (see the module's rule)."""
    shown = model_content(result)
    if isinstance(shown, str):
        if not shown and result.structured is not None:  # a result built without its text
            return json.dumps(result.structured, ensure_ascii=False, default=str)
        return shown or "(no output)"
    parts = []
    for block in shown:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ResourceContent):
            parts.append(resource_text(block))
        elif isinstance(block, ImageContent | AudioContent):
            parts.append(f"[{'image' if isinstance(block, ImageContent) else 'audio'}]")
    return clean_text("\n".join(parts)) or "(no output)"


def message_text(content: Any) -> str:
    """The text of a message's content, cleaned (see :func:`clean_text`)."""
    if isinstance(content, str):
        return clean_text(content)
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type', 'content')}]")
    return clean_text("\n".join(parts))


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
    return success_observation(tool or outcome.tool, result_text(outcome))


def tool_message_observation(message: ToolMessage, names: dict[str, str]) -> str:
    """The observation for a ``ToolMessage`` (its content is already what the model reads)."""
    text = message_text(message.content)
    if message.status == "error":
        artifact = message.artifact if isinstance(message.artifact, dict) else {}
        error = artifact.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        return format_observation(text, code=str(code or "EXECUTION_ERROR"))
    name = message.name or names.get(message.tool_call_id, "tool")
    return success_observation(name, text)


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


def copied_observation(detail: str) -> str:
    """The observation for an answer that copies an example of the instructions (nothing ran).

    The block, if any, was well formed: the model is told it copied, not that its XML broke.
    """
    return (
        f"Observation: Not run: {detail}. The examples only show the format. Answer the "
        "user's request itself: call a tool with the values from the request, or answer in "
        "plain words."
    )
