"""The core's JSON-Schema tool base: its quick path for flat schemas decides as jsonschema does."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import InvalidArguments, JsonSchemaTool, ToolContext, ToolResult, ToolSpec

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "description": "a string"},
        "i": {"type": "integer"},
        "n": {"type": "number"},
        "b": {"type": "boolean", "default": False},
        "e": {"type": "integer", "enum": [1, 2]},
        "a": {"type": "array"},
    },
    "required": ["s"],
    "additionalProperties": False,
}


class Flat(JsonSchemaTool):
    """A tool with a flat schema."""

    name = "flat"

    def __init__(self, schema: dict[str, Any] = SCHEMA) -> None:
        self._spec = ToolSpec(name="flat", description="Flat.", input_schema=schema)

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content="ok")

    def renamed(self, name: str) -> Flat:
        return self


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-3, 3),
    st.text(max_size=2),
    st.lists(st.integers(), max_size=2),
    st.just(1.0),
    st.just(True),
)


#: The same properties with extra ones allowed: explicitly, or by leaving the keyword out.
EXTRAS: list[dict[str, Any]] = [
    SCHEMA,
    {**SCHEMA, "additionalProperties": True},
    {k: v for k, v in SCHEMA.items() if k != "additionalProperties"},
]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["s", "i", "n", "b", "e", "a", "x"]), VALUES),
    st.sampled_from(EXTRAS),
)
def test_quick_path_and_jsonschema_agree(arguments: dict[str, Any], schema: dict[str, Any]) -> None:
    tool = Flat(schema)
    valid = jsonschema.Draft202012Validator(schema).is_valid(arguments)
    try:
        assert tool.validate(arguments) is arguments
        accepted = True
    except InvalidArguments as exc:
        accepted = False
        assert exc.problems
    assert accepted == valid


def test_problems_are_named_by_kind() -> None:
    try:
        Flat().validate({"i": "3", "zzz": 1})
    except InvalidArguments as exc:
        kinds = {(p.param, p.kind) for p in exc.problems}
    assert kinds == {("s", "missing"), ("i", "type"), ("", "unknown")}
