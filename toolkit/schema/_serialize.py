"""Turning a tool's return value into text for the model and a structured JSON value.

Rules (without an output schema):

* ``str`` is the text as it is; there is no structured value.
* ``None`` is the text ``"null"`` (an empty tool message is rejected or misread by some
  providers; ``null`` says plainly that nothing came back) and no structured value.
* Everything pydantic can serialize — models, dataclasses, TypedDicts, dicts, lists, tuples,
  sets, datetimes, UUID, Decimal, Enum, Path, numbers, booleans — becomes its JSON value
  (structured) and that value as compact JSON (text). A value that serializes to a JSON string
  (a ``datetime``, a ``UUID``, a ``str`` enum…) is given as that string, without quotes.
* Anything else falls back to ``str(value)`` with no structured value.

With an output schema the value is first validated against the declared return type, then
dumped in JSON mode; a mismatch is a :class:`~toolkit.errors.ToolError` here. A function tool
turns that error into a lenient result (the value serialized by the rules above, no structured
value) unless the tool is strict; :func:`first_mismatch` words the error for logs and records.
"""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_jsonable_python

from toolkit.errors import ErrorCode, ToolError

__all__ = ["AnnotationOutput", "SchemaOutput", "dumps", "first_mismatch", "serialize_plain"]


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(value: Any) -> str:
    """Compact JSON text; non-ASCII characters are kept as they are."""
    return _ENCODER.encode(value)


def _text_of(json_value: Any) -> str:
    return json_value if isinstance(json_value, str) else dumps(json_value)


def _scalar_text(value: str | int | float | bool) -> str | None:
    """The JSON text of a scalar, or ``None`` when pydantic must decide (huge ints, NaN)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else None
    return repr(value) if math.isfinite(value) else None


def serialize_plain(value: Any) -> tuple[str, Any]:
    """``(text, structured)`` for a value returned by a tool without an output schema."""
    if isinstance(value, str):
        return value, None
    if value is None:
        return "null", None
    try:
        json_value = to_jsonable_python(value)
    except (PydanticSerializationError, ValueError, TypeError):
        return str(value), None
    return _text_of(json_value), json_value


def _mismatch(expected: str, errors: list[dict[str, Any]], value: Any = None) -> ToolError:
    details: dict[str, Any] = {"expected": expected, "errors": errors}
    if errors:
        with contextlib.suppress(Exception):  # attributes that raise: the plain place will do
            details["first"] = _located(value, errors)
    return ToolError(
        f"Tool returned a value that does not match its declared return type ({expected}). "
        "This is a fault in the tool, not in the arguments of the call.",
        code=ErrorCode.EXECUTION_ERROR,
        details=details,
    )


def first_mismatch(error: ToolError) -> str:
    """``"path.to.value: what is wrong"`` for the first mismatch an output error lists."""
    details = error.details
    first = details.get("first")
    if isinstance(first, str):
        return first
    errors = details.get("errors")
    head = errors[0] if isinstance(errors, list) and errors else None
    if not isinstance(head, dict):
        return error.message
    return _worded(list(head.get("loc") or ()), [str(head.get("msg", "?"))])


def _worded(loc: list[Any], messages: list[str]) -> str:
    where = ".".join(str(part) for part in loc) or "(the whole value)"
    return f"{where}: {'; or '.join(dict.fromkeys(messages))}"


def _located(value: Any, errors: list[dict[str, Any]]) -> str:
    """The first mismatch, at the place in ``value`` it concerns.

    pydantic's locations also name the union member tried (``details.str``, ``details.bool``):
    the part of a location that leads somewhere in the value is the place, the rest is the
    member, and the messages of every member tried at that place are given together.
    """
    place = _reach(value, errors[0].get("loc") or ())
    said = [str(e.get("msg", "?")) for e in errors if _reach(value, e.get("loc") or ()) == place]
    return _worded(place, said)


def _reach(value: Any, loc: Any) -> list[Any]:
    place: list[Any] = []
    for part in loc:
        if (isinstance(value, dict) and part in value) or (
            isinstance(value, list | tuple) and isinstance(part, int) and part < len(value)
        ):
            value = value[part]
        elif isinstance(part, str) and part.isidentifier() and hasattr(value, part):
            value = getattr(value, part, None)
        else:
            break
        place.append(part)
    return place


class AnnotationOutput:
    """Validates and dumps return values against the function's return annotation."""

    __slots__ = ("_adapter", "_expected", "_plain", "_wraps")

    def __init__(
        self, adapter: TypeAdapter[Any], expected: str, wraps: bool, hint: Any = None
    ) -> None:
        self._adapter = adapter
        self._expected = expected
        self._wraps = wraps
        # A value of exactly the declared scalar type is its own JSON value: no pydantic round
        # trip (a third of a trivial call's cost). Floats only when finite (pydantic writes
        # NaN and infinities as null).
        self._plain = hint if hint in (int, str, bool, float) else None

    def serialize(self, value: Any) -> tuple[str, Any]:
        """``(text, structured)``; structured is ``{"result": ...}`` for wrapped results."""
        if type(value) is self._plain:
            text = _scalar_text(value)
            if text is not None:
                return text, ({"result": value} if self._wraps else value)
        try:
            json_value = self._adapter.dump_python(
                self._adapter.validate_python(value), mode="json"
            )
        except ValidationError as exc:
            errors = json.loads(exc.json(include_url=False, include_input=False))
            raise _mismatch(self._expected, errors, value) from exc
        except PydanticSerializationError as exc:
            raise _mismatch(self._expected, [{"msg": str(exc)}], value) from exc
        text = _text_of(json_value)
        return text, ({"result": json_value} if self._wraps else json_value)


class SchemaOutput:
    """Checks return values against an output schema given as a dict (jsonschema)."""

    __slots__ = ("_schema", "_validator")

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema
        self._validator: Any = None

    def serialize(self, value: Any) -> tuple[str, Any]:
        """``(text, structured)`` after checking the JSON value against the schema."""
        if self._validator is None:
            from jsonschema import validators

            cls = validators.validator_for(self._schema)
            self._validator = cls(self._schema)
        text, json_value = serialize_plain(value)
        if isinstance(value, str):
            json_value = value
        errors = [
            {"loc": list(e.absolute_path), "msg": e.message}
            for e in self._validator.iter_errors(json_value)
        ]
        if errors:
            raise _mismatch("the tool's output schema", errors, json_value)
        return text, json_value
