"""What the OpenAI chat-completions API refuses with HTTP 400, checked as it checks it.

The stub answers these requests as the real API does, so a client that would be refused in
production is refused in tests: strict tool schemas, message shapes, content parts.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "BadRequest",
    "check_request",
    "null_assistant_content",
    "null_content",
    "validate_request",
]

_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_MAX_TOOLS = 128


class BadRequest(Exception):
    """What the API would answer HTTP 400 to, in its words, with the parameter at fault."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


def _check_strict_schema(schema: Any, path: str) -> None:
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            raise BadRequest(
                f"Invalid schema for function: In context={path}, 'additionalProperties' is "
                "required to be supplied and to be false."
            )
        props = schema.get("properties", {})
        missing = sorted(set(props) - set(schema.get("required", [])))
        if missing:
            raise BadRequest(
                f"Invalid schema for function: In context={path}, 'required' is required to "
                f"be supplied and to be an array including every key in properties. Missing "
                f"'{missing[0]}'."
            )
    if "$ref" in schema and "$defs" not in schema and len(schema) > 1:
        raise BadRequest(f"Invalid schema for function: In context={path}, $ref has siblings.")
    for key in ("properties", "$defs"):
        for name, sub in (schema.get(key) or {}).items():
            _check_strict_schema(sub, f"{path}, '{name}'")
    for key in ("items", "additionalProperties"):
        _check_strict_schema(schema.get(key), f"{path}, {key}")
    for key in ("anyOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            _check_strict_schema(sub, f"{path}, {key} {i}")
    if "oneOf" in schema:
        raise BadRequest(
            f"Invalid schema for function: In context={path}, 'oneOf' is not permitted."
        )


def _check_tools(tools: Any) -> None:
    if not isinstance(tools, list):
        raise BadRequest("Invalid type for 'tools': expected an array.", "tools")
    if not tools:
        raise BadRequest(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            "tools",
        )
    if len(tools) > _MAX_TOOLS:
        raise BadRequest(
            f"Invalid 'tools': array too long. Expected an array with maximum length "
            f"{_MAX_TOOLS}, but got an array with length {len(tools)} instead.",
            "tools",
        )
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(fn, dict):
            raise BadRequest(f"Invalid 'tools[{i}]': expected a function tool.", f"tools[{i}]")
        name = fn.get("name", "")
        if not isinstance(name, str) or not _NAME.match(name):
            raise BadRequest(
                f"Invalid 'tools[{i}].function.name': string does not match pattern. Expected "
                f"a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$'. Got {name!r}.",
                f"tools[{i}].function.name",
            )
        if name in seen:
            raise BadRequest(f"Duplicate tool name {name!r}.", f"tools[{i}].function.name")
        seen.add(name)
        params = fn.get("parameters", {"type": "object", "properties": {}})
        if not isinstance(params, dict) or params.get("type") != "object":
            raise BadRequest(
                f"Invalid schema for function '{name}': schema must be a JSON Schema of "
                "'type: \"object\"', got 'type: \"{}\"'.".format(
                    params.get("type") if isinstance(params, dict) else None
                ),
                f"tools[{i}].function.parameters",
            )
        if fn.get("strict"):
            _check_strict_schema(params, "(root)")


def _check_content(message: dict[str, Any], i: int) -> None:
    content = message.get("content")
    if message.get("role") != "tool" or isinstance(content, str):
        return
    if not isinstance(content, list) or any(
        not isinstance(p, dict) or p.get("type") != "text" for p in content
    ):
        raise BadRequest(
            f"Invalid 'messages[{i}].content': a tool message's content must be a string or "
            "an array of text parts.",
            f"messages[{i}].content",
        )


def _check_messages(messages: Any) -> None:
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty array.", "messages")
    pending: list[str] = []
    answered: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        _check_content(message, i)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise BadRequest(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{i}].role",
                )
            pending.remove(call_id)
            answered.add(call_id)
            continue
        if pending:
            raise BadRequest(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(pending)}",
                f"messages.[{i}].role",
            )
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                fn = call.get("function", {})
                try:
                    json.loads(fn.get("arguments", ""))
                except ValueError as exc:
                    raise BadRequest(
                        f"messages[{i}]: tool call arguments are not valid JSON."
                    ) from exc
                pending.append(call.get("id"))
    if pending:
        raise BadRequest(
            "An assistant message with 'tool_calls' must be followed by tool messages responding "
            f"to each 'tool_call_id'. The following tool_call_ids did not have response "
            f"messages: {', '.join(pending)}",
            "messages",
        )


def null_content(message: Any) -> bool:
    return (
        isinstance(message, dict)
        and message.get("role") == "assistant"
        and message.get("content") is None
    )


def null_assistant_content(messages: Any) -> bool:
    return isinstance(messages, list) and any(null_content(m) for m in messages)


def validate_request(body: dict[str, Any]) -> None:
    """Check a chat-completions request body as the OpenAI API does.

    Raises:
        ValueError: With OpenAI's wording, when the API would answer HTTP 400.
    """
    try:
        check_request(body)
    except BadRequest as exc:
        raise ValueError(exc.message) from exc


def check_request(body: dict[str, Any]) -> None:
    """:func:`validate_request`, raising :class:`BadRequest` with the parameter at fault."""
    _check_messages(body.get("messages"))
    if "tools" in body:
        _check_tools(body["tools"])
