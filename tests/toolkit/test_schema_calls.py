"""validate, bind and serialize of FunctionSchema."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from tests.support.schema_helpers import build
from toolkit.context import Injected, ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.tool import ArgumentProblem, InvalidArguments


class Address(BaseModel):
    street: str
    zip: Annotated[str, Field(pattern=r"^\d{5}$")]


class Status(enum.Enum):
    ACTIVE = "active"


@dataclass
class Point:
    x: int
    y: int


class Row(TypedDict):
    code: str


def move(
    bin_code: str,
    qty: Annotated[int, Field(ge=1, le=100)],
    mode: Literal["fast", "slow"] = "fast",
    address: Address | None = None,
    items: list[int] = Field(default_factory=list),
    when: dt.date | None = None,
) -> None: ...


def problems(fn: Any, arguments: Any) -> list[ArgumentProblem]:
    with pytest.raises(InvalidArguments) as info:
        build(fn).validate(arguments)
    return info.value.problems


def test_validate_coerces_and_fills_defaults() -> None:
    validated = build(move).validate(
        {
            "bin_code": "B1",
            "qty": "10",
            "when": "2024-05-01",
            "address": {"street": "S", "zip": "12345"},
        }
    )
    assert validated == {
        "bin_code": "B1",
        "qty": 10,
        "mode": "fast",
        "address": Address(street="S", zip="12345"),
        "items": [],
        "when": dt.date(2024, 5, 1),
    }


def test_default_factory_gives_a_fresh_value_each_time() -> None:
    schema = build(move)
    first = schema.validate({"bin_code": "B", "qty": 1})["items"]
    first.append(1)
    assert schema.validate({"bin_code": "B", "qty": 1})["items"] == []


def test_extra_keys_are_ignored() -> None:
    assert build(move).validate({"bin_code": "B", "qty": 1, "unknown": 3})["qty"] == 1


def test_missing_and_wrong_type() -> None:
    found = problems(move, {"qty": "many"})
    assert [(p.param, p.kind) for p in found] == [("bin_code", "missing"), ("qty", "type")]
    assert found[0].message == "Field required"
    assert "valid integer" in found[1].message


def test_str_parameter_does_not_take_a_number() -> None:
    assert [(p.param, p.kind) for p in problems(move, {"bin_code": 5, "qty": 1})] == [
        ("bin_code", "type")
    ]


def test_out_of_range_and_bad_literal() -> None:
    found = problems(move, {"bin_code": "B", "qty": 500, "mode": "warp"})
    assert [(p.param, p.kind) for p in found] == [("qty", "value"), ("mode", "value")]
    assert "less than or equal to 100" in found[0].message


def test_nested_paths() -> None:
    found = problems(
        move,
        {"bin_code": "B", "qty": 1, "address": {"street": "S", "zip": "x"}, "items": [1, 2, "z"]},
    )
    assert [(p.param, p.kind) for p in found] == [("address.zip", "value"), ("items.2", "type")]


def test_arguments_that_are_not_an_object() -> None:
    found = problems(move, ["B", 1])
    assert len(found) == 1 and found[0].param == "" and found[0].kind == "type"


def test_bind_context_injected_and_positional_only() -> None:
    def fn(
        code: str,
        /,
        ctx: ToolContext,
        tenant: Annotated[str, Injected],
        user: Annotated[str, Injected],
        region: Annotated[str, Injected] = "eu",
        *,
        limit: int = 3,
    ) -> None: ...

    schema = build(fn)
    context = ToolContext(injected={"tenant": "acme"}, values={"user": "ann", "tenant": "other"})
    args, kwargs = schema.bind(schema.validate({"code": "B1"}), context)
    assert args == ["B1"]
    assert kwargs == {"ctx": context, "tenant": "acme", "user": "ann", "region": "eu", "limit": 3}


def test_bind_missing_injected_value_is_an_execution_error() -> None:
    def fn(tenant: Annotated[str, Injected], code: str) -> None: ...

    schema = build(fn)
    with pytest.raises(ToolError) as info:
        schema.bind({"code": "B"}, ToolContext(tool="reserve"))
    assert info.value.code is ErrorCode.EXECUTION_ERROR
    assert "`tenant`" in info.value.message and "`reserve`" in info.value.message


def untyped_result(value: Any):  # type: ignore[no-untyped-def]
    return value


@pytest.mark.parametrize(
    ("value", "text", "structured"),
    [
        ("plain text", "plain text", None),
        (None, "null", None),
        (3, "3", 3),
        (True, "true", True),
        ({"a": [1, 2]}, '{"a":[1,2]}', {"a": [1, 2]}),
        ([1, "é"], '[1,"é"]', [1, "é"]),
        ((1, 2), "[1,2]", [1, 2]),
        ({3}, "[3]", [3]),
        (
            Address(street="S", zip="12345"),
            '{"street":"S","zip":"12345"}',
            {"street": "S", "zip": "12345"},
        ),
        (Point(1, 2), '{"x":1,"y":2}', {"x": 1, "y": 2}),
        (Row(code="c"), '{"code":"c"}', {"code": "c"}),
        (dt.datetime(2024, 5, 1, 12, 0), "2024-05-01T12:00:00", "2024-05-01T12:00:00"),
        (
            uuid.UUID(int=1),
            "00000000-0000-0000-0000-000000000001",
            "00000000-0000-0000-0000-000000000001",
        ),
        (Decimal("1.50"), "1.50", "1.50"),
        (Status.ACTIVE, "active", "active"),
        (Path("/tmp/x"), "/tmp/x", "/tmp/x"),
    ],
)
def test_serialize_without_output_schema(value: Any, text: str, structured: Any) -> None:
    schema = build(untyped_result)
    assert schema.output_schema is None
    assert schema.serialize(value) == (text, structured)


def test_serialize_unknown_object_falls_back_to_str() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque thing"

    assert build(untyped_result).serialize(Opaque()) == ("opaque thing", None)


def test_serialize_with_object_output_schema() -> None:
    def fn() -> Address: ...

    schema = build(fn)
    assert schema.serialize(Address(street="S", zip="12345")) == (
        '{"street":"S","zip":"12345"}',
        {"street": "S", "zip": "12345"},
    )
    assert schema.serialize({"street": "S", "zip": "12345"})[1] == {"street": "S", "zip": "12345"}


def test_serialize_wrapped_results() -> None:
    def text() -> str: ...
    def many() -> list[Point]: ...
    def maybe() -> int | None: ...

    assert build(text).serialize("hi") == ("hi", {"result": "hi"})
    assert build(many).serialize([Point(1, 2)]) == (
        '[{"x":1,"y":2}]',
        {"result": [{"x": 1, "y": 2}]},
    )
    assert build(maybe).serialize(None) == ("null", {"result": None})


def test_serialize_mismatch_is_an_execution_error() -> None:
    def fn() -> list[Point]: ...

    with pytest.raises(ToolError) as info:
        build(fn).serialize([{"x": 1}])
    error = info.value
    assert error.code is ErrorCode.EXECUTION_ERROR
    assert error.message.startswith(
        "Tool returned a value that does not match its declared return type"
    )
    assert error.details["errors"][0]["loc"] == [0, "y"]


def test_serialize_with_explicit_output_schema() -> None:
    custom = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    schema = build(untyped_result, output_schema=custom)
    assert schema.serialize({"n": 1}) == ('{"n":1}', {"n": 1})
    with pytest.raises(ToolError, match="does not match"):
        schema.serialize({"n": "one"})
