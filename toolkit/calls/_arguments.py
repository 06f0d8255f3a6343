"""Reading a model's arguments: JSON text or a mapping in, a plain dict out, never an exception.

Whatever a model (or an attacker) sends — invalid JSON, integers past Python's 4,300-digit
limit, nesting deeper than the interpreter's stack, bytes that are not UTF-8 — comes back as a
``PARSE_ERROR`` or ``INVALID_PARAMS`` message, not as an exception escaping ``registry.call``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolkit.calls import _messages
from toolkit.errors import ErrorCode, ToolError
from toolkit.tool import InvalidArguments, Tool

_NESTED = (dict, list, tuple)

#: Deepest nesting of arguments accepted; real tool arguments stay far below it.
MAX_DEPTH = 64


class ArgumentsRejected(Exception):
    """The arguments cannot be read; ``error`` is the message for the model."""

    def __init__(self, error: ToolError) -> None:
        super().__init__(error.message)
        self.error = error


def parse(arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
    """The arguments as a dict.

    Raises:
        ArgumentsRejected: Not a JSON object, or too deep to handle.
    """
    if type(arguments) is dict:  # the usual case: flat arguments, nothing to walk or copy
        for item in arguments.values():
            if type(item) in _NESTED:
                break
        else:
            return arguments
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        value: Any = arguments if isinstance(arguments, dict) else dict(arguments)
        if depth_exceeds(value, MAX_DEPTH):
            raise ArgumentsRejected(_too_deep())
        return value  # type: ignore[no-any-return]
    if isinstance(arguments, str | bytes | bytearray):
        try:
            if not arguments.strip():
                return {}
            value = json.loads(arguments)
        except json.JSONDecodeError as exc:
            raise ArgumentsRejected(
                _messages.parse_error(f"invalid JSON: {exc.msg} at position {exc.pos}")
            ) from None
        except UnicodeDecodeError:
            raise ArgumentsRejected(_messages.parse_error("the bytes are not UTF-8")) from None
        except RecursionError:
            raise ArgumentsRejected(_too_deep()) from None
        except ValueError as exc:  # e.g. an integer past the interpreter's digit limit
            raise ArgumentsRejected(_messages.parse_error(str(exc).split(";")[0])) from None
        if not isinstance(value, dict):
            raise ArgumentsRejected(_messages.parse_error(f"got a JSON {type(value).__name__}"))
        if depth_exceeds(value, MAX_DEPTH):
            raise ArgumentsRejected(_too_deep())
        return value
    raise ArgumentsRejected(_messages.parse_error(f"got a {type(arguments).__name__}"))


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether dicts and lists in ``value`` nest deeper than ``limit`` (no recursion used)."""
    if type(value) is dict and not any(type(v) in _NESTED for v in value.values()):
        return False  # the usual flat arguments: nothing to walk
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list | tuple):
            stack.extend((v, depth + 1) for v in item)
    return False


def _too_deep() -> ToolError:
    return ToolError(
        f"The arguments nest objects or arrays more than {MAX_DEPTH} levels deep. Send a "
        "flatter JSON object that matches the tool's parameters.",
        code=ErrorCode.INVALID_PARAMS,
    )


def unreadable(exc: BaseException) -> ToolError:
    """``INVALID_PARAMS`` for arguments a validator could not even look at."""
    return ToolError(
        f"The arguments could not be read ({type(exc).__name__}). Send plain JSON values "
        "(strings, numbers of reasonable size, booleans, arrays, objects) that match the "
        "tool's parameters.",
        code=ErrorCode.INVALID_PARAMS,
    )


def recover(
    tool: Tool, args: dict[str, Any], exc: InvalidArguments
) -> tuple[dict[str, Any] | None, InvalidArguments]:
    """Validate again after the fallbacks, once validation failed (so the usual call pays
    nothing): nulls that mean "not given" dropped, then JSON strings decoded.

    Returns:
        ``(validated, problems)``: the validated arguments, or ``None`` with the problems of
        the last attempt.
    """
    lean = drop_nulls(tool, args, exc)
    if lean is not None:
        try:
            return tool.validate(lean), exc
        except InvalidArguments as again:
            args, exc = lean, again
    if tool.spec.options.coerce_json_strings:
        retried = decode_json_strings(tool, args, exc)
        if retried is not None:
            try:
                return tool.validate(retried), exc
            except InvalidArguments as again:
                exc = again
    return None, exc


def drop_nulls(tool: Tool, args: dict[str, Any], exc: InvalidArguments) -> dict[str, Any] | None:
    """Arguments without the ``null`` values that mean "not given".

    Models send ``null`` for parameters they leave out (always in OpenAI strict mode). A null
    the validator refused, for a parameter that is not required, is dropped so that the
    default applies (a JSON-Schema tool then receives the arguments without that key). A
    parameter whose type admits null never gets here (its null is valid and kept); a null for
    a required parameter stays and is reported.

    Returns:
        The arguments without those keys, or ``None`` when there is none to drop.
    """
    refused = {problem.param.split(".", 1)[0] for problem in exc.problems}
    if not refused:
        return None
    required = tool.spec.required
    drop = [k for k in refused if k in args and args[k] is None and k not in required]
    if not drop:
        return None
    return {k: v for k, v in args.items() if k not in drop}


def decode_json_strings(
    tool: Tool, args: dict[str, Any], exc: InvalidArguments
) -> dict[str, Any] | None:
    """Arguments with JSON-string values decoded where an object or array was expected."""
    decoded = dict(args)
    changed = False
    for problem in exc.problems:
        key = problem.param.split(".", 1)[0]
        value = decoded.get(key)
        if not isinstance(value, str) or not _wants_structure(tool.spec.parameters.get(key)):
            continue
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        if isinstance(parsed, dict | list) and not depth_exceeds(parsed, MAX_DEPTH):
            decoded[key], changed = parsed, True
    return decoded if changed else None


def _wants_structure(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds or "array" in kinds:
        return "string" not in kinds
    options = schema.get("anyOf") or schema.get("oneOf") or []
    return any(_wants_structure(s) for s in options) and not any(
        isinstance(s, dict) and s.get("type") == "string" for s in options
    )
