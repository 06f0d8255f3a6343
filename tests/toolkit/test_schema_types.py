"""Every supported parameter type gives a valid, title-free, ref-free JSON Schema."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, Optional

from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from tests.support.schema_helpers import build, has_key, prop


class Color(str, enum.Enum):  # noqa: UP042 (the classic str enum users write)
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Address(BaseModel):
    street: str
    zip: Annotated[str, Field(pattern=r"^\d{5}$", description="Postal code.")]


class Customer(BaseModel):
    name: str
    address: Address = Field(description="Where the customer lives.")


@dataclass
class Box:
    width: int
    tags: list[str] = field(default_factory=list)


class Item(TypedDict):
    sku: str
    qty: NotRequired[int]


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def test_scalars() -> None:
    def f(s: str, i: int, x: float, b: bool, raw: bytes, nothing: None) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["s"] == {"type": "string"}
    assert props["i"] == {"type": "integer"}
    assert props["x"] == {"type": "number"}
    assert props["b"] == {"type": "boolean"}
    assert props["raw"]["type"] == "string"
    assert props["nothing"] == {"type": "null"}
    assert build(f).input_schema["required"] == ["s", "i", "x", "b", "raw", "nothing"]


def test_no_parameters() -> None:
    def f() -> None: ...

    assert build(f).input_schema == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_annotated_field_and_string_description() -> None:
    def f(
        n: Annotated[int, Field(description="How many.", ge=1, le=10)],
        note: Annotated[str, "A free note."],
    ) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["n"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "How many.",
    }
    assert props["note"] == {"type": "string", "description": "A free note."}


def test_literal_and_enums() -> None:
    def f(mode: Literal["fast", "slow"], color: Color, level: Level) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert props["color"]["enum"] == ["red", "green"]
    assert props["level"]["enum"] == [1, 2]
    assert not has_key(props, "$ref")


def test_optional_with_none_default_is_not_required() -> None:
    def f(a: int | None = None, b: Optional[str] = None, c: int | None = 3) -> None: ...  # noqa: UP045

    schema = build(f).input_schema
    assert "required" not in schema
    assert schema["properties"]["a"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": None,
    }
    assert schema["properties"]["c"]["default"] == 3


def test_defaults_and_default_factory_are_not_required() -> None:
    def f(
        a: int,
        b: int = 5,
        *,
        c: Annotated[list[int], Field(default_factory=list)],
        d: list[str] = Field(default_factory=list, description="Tags."),
    ) -> None: ...

    schema = build(f).input_schema
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"]["default"] == 5
    assert schema["properties"]["d"]["description"] == "Tags."


def test_collections() -> None:
    def f(
        a: list[int],
        b: tuple[int, str],
        c: tuple[int, ...],
        d: set[str],
        e: frozenset[int],
        m: dict[str, float],
    ) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["a"] == {"type": "array", "items": {"type": "integer"}}
    assert props["b"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert props["c"] == {"type": "array", "items": {"type": "integer"}}
    assert props["d"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert props["e"]["uniqueItems"] is True
    assert props["m"] == {"type": "object", "additionalProperties": {"type": "number"}}


def test_nested_model_is_inlined_with_sibling_description() -> None:
    def f(customer: Customer) -> None: ...

    schema = build(f).input_schema
    assert not has_key(schema, "$ref")
    assert not has_key(schema, "$defs")
    assert not has_key(schema, "title")
    address = schema["properties"]["customer"]["properties"]["address"]
    assert address["description"] == "Where the customer lives."
    assert address["properties"]["zip"]["pattern"] == r"^\d{5}$"
    assert address["required"] == ["street", "zip"]


def test_dataclass_and_typeddict() -> None:
    def f(box: Box, item: Item) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["box"]["properties"]["width"] == {"type": "integer"}
    assert props["box"]["required"] == ["width"]
    assert props["item"]["required"] == ["sku"]
    assert set(props["item"]["properties"]) == {"sku", "qty"}


def test_date_time_uuid_decimal_path_any() -> None:
    def f(
        when: dt.datetime, day: dt.date, at: dt.time, id: uuid.UUID, price: Decimal, p: Path, x: Any
    ) -> None: ...

    props = build(f).input_schema["properties"]
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["day"] == {"type": "string", "format": "date"}
    assert props["at"] == {"type": "string", "format": "time"}
    assert props["id"] == {"type": "string", "format": "uuid"}
    assert "anyOf" in props["price"]
    assert props["p"]["type"] == "string"
    assert props["x"] == {}


def test_recursive_type_keeps_defs() -> None:
    def f(tree: Tree) -> None: ...

    schema = build(f).input_schema
    assert schema["properties"]["tree"]["properties"]["label"] == {"type": "string"}
    assert schema["$defs"]["Tree"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Tree"}


def test_property_named_title_is_kept() -> None:
    def f(title: str, name: str = "x") -> None: ...

    assert set(prop(f, "title")) == {"type"}
    assert list(build(f).input_schema["properties"]) == ["title", "name"]


def test_unusual_parameter_names() -> None:
    def f(model_config: int, json: str, _private: bool = False) -> None: ...

    schema = build(f)
    assert list(schema.input_schema["properties"]) == ["model_config", "json", "_private"]
    assert schema.validate({"model_config": 1, "json": "j"}) == {
        "model_config": 1,
        "json": "j",
        "_private": False,
    }


def test_untyped_parameter_takes_the_type_of_its_default() -> None:
    def f(limit=10, name="a", anything=None) -> None:  # type: ignore[no-untyped-def]
        ...

    props = build(f).input_schema["properties"]
    assert props["limit"] == {"type": "integer", "default": 10}
    assert props["name"] == {"type": "string", "default": "a"}
    assert props["anything"] == {"default": None}


def test_output_schema_object_types_are_not_wrapped() -> None:
    def model() -> Customer: ...
    def dc() -> Box: ...
    def td() -> Item: ...
    def mapping() -> dict[str, int]: ...

    for fn in (model, dc, td, mapping):
        built = build(fn)
        assert built.wraps_result is False
        assert built.output_schema is not None and not has_key(built.output_schema, "title")
    assert build(model).output_schema["properties"]["address"]["required"] == ["street", "zip"]  # type: ignore[index]


def test_output_schema_other_types_are_wrapped() -> None:
    def many() -> list[Address]: ...
    def text() -> str: ...
    def maybe() -> Customer | None: ...

    for fn in (many, text, maybe):
        built = build(fn)
        assert built.wraps_result is True
        assert built.output_schema is not None
        assert built.output_schema["required"] == ["result"]
    assert build(text).output_schema == {
        "type": "object",
        "properties": {"result": {"type": "string"}},
        "required": ["result"],
    }


def test_no_output_schema() -> None:
    def none() -> None: ...
    def anything() -> Any: ...
    def unannotated():  # type: ignore[no-untyped-def]
        ...

    for fn in (none, anything, unannotated):
        assert build(fn).output_schema is None
    assert build(text_fn, output_schema=False).output_schema is None
    assert build(text_fn, output_schema=None).output_schema is None
    custom = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert build(text_fn, output_schema=custom).output_schema == custom


def text_fn() -> str:
    return "x"
