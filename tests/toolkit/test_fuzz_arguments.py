"""Fuzzing ``registry.call`` with hostile JSON for every kind of tool: no exception escapes.

Whatever arrives — any shape, huge numbers, NaN, lone surrogates, deep nesting, raw text or
bytes — the call comes back as a :class:`ToolResult`: a success, or an error with one of the
codes a model can act on.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated, Any, TypedDict

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolkit import (
    ArgumentProblem,
    ErrorCode,
    InvalidArguments,
    Tool,
    ToolContext,
    ToolRegistry,
    ToolResult,
    ToolSpec,
)

EXPECTED = {
    ErrorCode.PARSE_ERROR,
    ErrorCode.INVALID_PARAMS,
    ErrorCode.EXECUTION_ERROR,
    ErrorCode.TOOL_NOT_FOUND,
}


class Item(BaseModel):
    sku: str
    qty: Annotated[int, Field(ge=0)] = 1


@dataclasses.dataclass
class Window:
    start: int
    end: int


class Tag(TypedDict):
    key: str
    value: float


def plain(text: str, n: int = 0, flag: bool = False) -> str:
    """Plain scalars.

    Args:
        text: Text.
        n: Number.
        flag: Flag.
    """
    return f"{text}{n}{flag}"


async def asynchronous(values: list[float], labels: dict[str, int] | None = None) -> int:
    """Collections, async.

    Args:
        values: Numbers.
        labels: Weights.
    """
    return len(values) + len(labels or {})


def structured(
    item: Item, window: Window | None = None, tags: list[Tag] | None = None
) -> dict[str, Any]:
    """Models, dataclasses and TypedDicts.

    Args:
        item: The item.
        window: A time window.
        tags: Labels.
    """
    return {"sku": item.sku, "tags": len(tags or [])}


def with_context(note: str, ctx: ToolContext) -> str:
    """Takes the caller's context.

    Args:
        note: A note.
    """
    return note + ctx.tool


class Counter:
    def __init__(self) -> None:
        self.total: int = 0

    def bump(self, by: int = 1) -> int:
        """Add to the counter.

        Args:
            by: How much.
        """
        self.total += by
        return self.total


_SCHEMA = {
    "type": "object",
    "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "maximum": 100}},
    "required": ["query"],
    "additionalProperties": False,
}


class SchemaTool:
    """A tool described by a JSON Schema, as remote and HTTP tools are."""

    runs = "async"

    def __init__(self, name: str = "search") -> None:
        self._spec = ToolSpec(name=name, description="Search.", input_schema=_SCHEMA)
        self._validator = jsonschema.Draft202012Validator(_SCHEMA)

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        problems = [
            ArgumentProblem(".".join(map(str, e.path)), "type", e.message)
            for e in self._validator.iter_errors(arguments)
        ]
        if problems:
            raise InvalidArguments(problems)
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content=json.dumps(arguments))

    def renamed(self, name: str) -> Tool:
        return SchemaTool(name)


REGISTRY = ToolRegistry()
for _fn in (plain, asynchronous, structured, with_context, Counter().bump):
    REGISTRY.register(_fn)
REGISTRY.add(SchemaTool())
NAMES = [*REGISTRY.names(), "no_such_tool"]
PARAMS = ["text", "n", "flag", "values", "labels", "item", "window", "tags", "note", "ctx"]
PARAMS += ["by", "query", "limit", "sku", "qty", "start", "end", "key", "value"]


def _huge(digits: int) -> int:
    """An integer past the interpreter's 4,300-digit limit for str() and JSON."""
    return int(10**digits)


_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=4300, max_value=6000).map(_huge)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_values = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)
_args = st.dictionaries(st.sampled_from(PARAMS) | st.text(max_size=8), _values, max_size=5)


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except ValueError:  # an integer past the digit limit: write its digits by hand
        return '{"n": ' + "9" * 4400 + "}"


def _nested(depth: int) -> str:
    return '{"values": ' + "[" * depth + "]" * depth + "}"


_raw = st.one_of(
    _args,
    st.builds(_dumps, _args),
    st.text(),
    st.binary(),
    st.integers(min_value=10, max_value=200_000).map(_nested),
    st.sampled_from(["", "null", "[]", '"text"', "{", '{"n": 1e999}', '{"text": "\\ud800"}']),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), arguments=_raw)
def test_no_exception_escapes_registry_call(name: str, arguments: Any) -> None:
    result = REGISTRY.call_sync(name, arguments)
    assert isinstance(result, ToolResult)
    if result.is_error:
        assert result.code in EXPECTED, result.content
    assert result.record is not None
    str(result.record)
