"""Simple parameters skip the per-function pydantic model: same schema bytes, same validation."""

from __future__ import annotations

import itertools
import json
import threading
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from toolkit import InvalidArguments
from toolkit.schema import _builder, build_function_schema
from toolkit.schema._fast import LazyValidator

HINTS = [
    "int",
    "str",
    "float",
    "bool",
    "int | None",
    "str | None",
    "list[str]",
    "list[int] | None",
    "set[str]",
    "dict[str, float]",
    "Literal['asc', 'desc']",
    "Literal[1, 2, 3] | None",
    "Optional[float]",
    "Union[int, str]",
    "list[Literal['a', 'b']]",
]
DEFAULTS = ["", " = None", " = 3", " = 'x'", " = 1.5", " = True"]


def _function(i: int, hint: str, default: str, documented: bool) -> Any:
    doc = (
        f'    """Op {i}.\n\n    Args:\n        value: The value {i}.\n    """\n'
        if documented
        else ""
    )
    source = (
        "from typing import Literal, Optional, Union\n"
        f"def op_{i}(first: int, value: {hint}{default}, last: str = 'z') -> int:\n"
        f"{doc}    return 1\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    return namespace[f"op_{i}"]


def _model_path(fn: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as patch:
        patch.setattr(_builder, "simple_properties", lambda *a, **k: None)
        return build_function_schema(fn).input_schema


CASES = list(itertools.product(HINTS, DEFAULTS, [True, False]))


@pytest.mark.parametrize(("hint", "default", "documented"), CASES)
def test_the_simple_path_writes_the_model_paths_bytes(
    hint: str, default: str, documented: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    fn = _function(CASES.index((hint, default, documented)), hint, default, documented)
    fast = build_function_schema(fn)
    assert isinstance(fast._validator, LazyValidator)
    assert json.dumps(fast.input_schema) == json.dumps(_model_path(fn, monkeypatch))


class Point(BaseModel):
    x: int


def with_model(p: Point) -> int:
    return p.x


def with_field(n: Annotated[int, Field(ge=0)] = 1) -> int:
    return n


def with_list_default(tags: list[str] = ["a"]) -> int:
    return len(tags)


def test_other_parameters_keep_the_model_path() -> None:
    for fn in (with_model, with_field, with_list_default):
        assert not isinstance(build_function_schema(fn)._validator, LazyValidator)


def test_the_lazy_validator_validates_coerces_and_reports_like_the_model() -> None:
    schema = build_function_schema(_function(999, "Literal['asc', 'desc']", " = 'asc'", True))
    assert schema.validate({"first": "7", "last": "q"}) == {"first": 7, "value": "asc", "last": "q"}
    with pytest.raises(InvalidArguments) as caught:
        schema.validate({"first": "x", "value": "up"})
    assert {p.param for p in caught.value.problems} == {"first", "value"}


def test_the_lazy_validator_is_built_once_under_concurrent_first_calls() -> None:
    built: list[int] = []
    schema = build_function_schema(_function(998, "int", "", False))
    inner = schema._validator._build

    def build() -> Any:
        built.append(1)
        return inner()

    schema._validator._build = build
    threads = [
        threading.Thread(target=schema.validate, args=({"first": 1, "value": 2},)) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert built == [1]
