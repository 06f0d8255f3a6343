"""Property tests: arguments rendered as an ACTION block parse back to themselves, by schema."""

from __future__ import annotations

from typing import Any, cast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.action_xml import ActionCall, parse_action, render_action
from toolkit import ToolSpec

# XML cannot carry control characters (and turns \r into \n): text is everything else.
TEXT = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"),
        blacklist_characters="\ufffe\uffff",
        whitelist_characters="\t\n",
    ),
    max_size=30,
)
NAMES = st.from_regex(r"\A[a-z_][a-z0-9_]{0,8}\Z") | st.sampled_from(
    ["1st", "x-y", "a.b", "item", "Item2"]
)
TOOL_NAMES = st.from_regex(r"\A[a-zA-Z0-9_-]{1,20}\Z")

LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "enum": ["red", "green", "a < b"]},
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    ]
)


def _objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(NAMES, children, min_size=1, max_size=3).map(
        lambda props: {"type": "object", "properties": props, "required": list(props)}
    )


SCHEMAS = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        children.map(lambda s: {"type": "array", "items": s}),
        _objects(children),
    ),
    max_leaves=6,
)


def values(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "anyOf" in schema:
        return st.none() | st.integers()
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema["type"]
    if kind == "string":
        return TEXT
    if kind == "integer":
        return st.integers()
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**6), 10**6)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(values(schema["items"]), max_size=3)
    return st.fixed_dictionaries({k: values(v) for k, v in schema["properties"].items()})


@st.composite
def tool_and_arguments(draw: st.DrawFn) -> tuple[ToolSpec, dict[str, Any]]:
    schema = draw(_objects(cast(st.SearchStrategy[dict[str, Any]], SCHEMAS)))
    spec = ToolSpec(name=draw(TOOL_NAMES), description="A tool.", input_schema=schema)
    return spec, draw(values(schema))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_and_arguments(), TEXT.filter(lambda t: "<" not in t and "`" not in t))
def test_render_then_parse_gives_the_arguments_back(
    case: tuple[ToolSpec, dict[str, Any]], reasoning: str
) -> None:
    spec, arguments = case
    answer = f"{reasoning}\n{render_action([(spec.name, arguments)])}"
    parsed = parse_action(answer, [spec])
    assert parsed.error is None, (parsed.error, answer)
    assert parsed.calls == [ActionCall(spec.name, arguments)], answer
    assert parsed.response_text == reasoning.strip()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_parse_never_raises_on_any_text(text: str) -> None:
    parsed = parse_action(text)
    assert parsed.error is None or parsed.calls == []
    parsed = parse_action("<ACTION>" + text)
    assert isinstance(parsed.response_text, str)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="<>/&;![]CDATAcdata-_ \n\"'=1xyitem", max_size=120))
def test_parse_never_raises_on_markup_soup(soup: str) -> None:
    from tests.adapters.action_xml.tools import protocol_registry

    for text in (f"<ACTION>{soup}</ACTION>", f"<ACTION><set_counter>{soup}</set_counter>"):
        parsed = parse_action(text, protocol_registry())
        assert (parsed.error is None) or parsed.calls == []
