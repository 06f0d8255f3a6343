"""Whatever a model sends, the call path answers with a result: never an exception, never a trace.

Hypothesis feeds arbitrary JSON values, arbitrary strings and arbitrary tool names to a registry
of the example tools and the test tools.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.demo.warehouse_app import build_registry
from tests.toolkit import tools_for_tests as t
from toolkit import ErrorCode, ToolRegistry, ToolResult

# Tools that sleep for as long as the arguments say: correct, but they would make the run slow.
_SLOW = {"slow_sync", "slow_async", "recount_bin"}


def _registry() -> ToolRegistry:
    registry = build_registry()
    registry.scan(t)
    registry.scan(t.Flaky(failures=0), namespace="flaky")
    for name in _SLOW:
        registry.remove(name)
    return registry


REGISTRY = _registry()
NAMES = REGISTRY.names()

# Values a model plausibly sends (so calls get past validation), then anything JSON at all.
plausible = st.sampled_from(
    [
        *("acme", "globex", "A-01-01", "A-02-01", "WIDGET-1", "active", "locked", "x"),
        *(0, 1, 3, 7, 1.5, True, None, ["a", "b"], {"a": 1}, '{"a": 2}', '["a"]'),
    ]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _mostly(usual: st.SearchStrategy[Any], rare: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` three times in four, ``rare`` otherwise (``one_of`` would give one in two)."""
    return st.integers(0, 3).flatmap(lambda i: usual if i else rare)


def _argument_dicts(params: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    keys = _mostly(st.sampled_from(params), st.sampled_from(EXTRA_KEYS) | st.text(max_size=12))
    return st.dictionaries(keys, _mostly(plausible, json_values), max_size=len(params) + 1)


def _arguments(params: list[str]) -> st.SearchStrategy[Any]:
    dicts = _argument_dicts(params or ["x"])
    return _mostly(
        dicts | dicts.map(json.dumps),  # as a caller passes them / as they come off the wire
        st.one_of(
            json_values.map(json.dumps),  # valid JSON, often not an object
            st.text(max_size=60),  # anything at all
            json_values,  # a caller passing a list or a number where a dict belongs
        ),
    )


EXTRA_KEYS = ["ctx", "operator", "user", "self", "playerid", "tenant"]
known_calls = st.sampled_from(NAMES).flatmap(
    lambda name: st.tuples(st.just(name), _arguments(list(REGISTRY.get(name).spec.parameters)))
)
unknown_calls = st.tuples(st.text(max_size=30), _arguments(EXTRA_KEYS))
calls = _mostly(known_calls, unknown_calls)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _check(result: Any) -> None:
    assert isinstance(result, ToolResult)
    assert isinstance(result.content, str)
    assert "Traceback" not in result.content
    if result.is_error:
        assert result.error is not None and isinstance(result.code, ErrorCode)
        assert result.content.startswith(f"Error [{result.code.value}]")
        assert result.record is not None and result.record.code is result.code


@SETTINGS
@given(call=calls)
def test_call_sync_never_raises(call: tuple[str, Any]) -> None:
    _check(REGISTRY.call_sync(*call))


@pytest.mark.anyio
@SETTINGS
@given(call=calls)
async def test_await_call_never_raises(call: tuple[str, Any]) -> None:
    _check(await REGISTRY.call(*call))


@pytest.mark.anyio
@settings(SETTINGS, max_examples=40)
@given(batch=st.lists(calls, max_size=6))
async def test_call_many_answers_every_call(batch: list[tuple[str, Any]]) -> None:
    results = await REGISTRY.call_many(batch)
    assert len(results) == len(batch)
    for result in results:
        _check(result)


def test_the_strategies_reach_every_outcome() -> None:
    """The fuzzing is only worth something if it reaches past the first checks."""
    assert REGISTRY.call_sync("get_bin", {"code": "A-01-01"}).is_error is False
    seen = {
        REGISTRY.call_sync(name, args).code
        for name, args in [
            ("nope", {}),
            ("add", "{"),
            ("add", {"a": "x"}),
            ("crash", {"message": "boom"}),
            ("wipe", {"scope": "all"}),
        ]
    }
    assert seen == {
        ErrorCode.TOOL_NOT_FOUND,
        ErrorCode.PARSE_ERROR,
        ErrorCode.INVALID_PARAMS,
        ErrorCode.EXECUTION_ERROR,
        ErrorCode.DENIED,
    }
