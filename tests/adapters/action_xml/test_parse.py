"""parse_action beyond the corpus: hostile sizes, limits, the hardened parser, observations."""

from __future__ import annotations

import pytest

from adapters.action_xml import (
    MAX_DEPTH,
    ParsedAction,
    format_observation,
    malformed_observation,
    parse_action,
    to_tag,
)
from adapters.action_xml._xml import MalformedAction, parse_block
from tests.adapters.action_xml.tools import protocol_registry
from toolkit import ErrorCode, ToolError, ToolResult


def test_megabytes_without_an_action_are_the_answer() -> None:
    text = ("All fine < here & there. " * 200_000).strip()  # about 5 MB
    parsed = parse_action(text)
    assert parsed == ParsedAction(text)
    assert not parsed.has_action


def test_many_unclosed_cdata_openers_end_at_the_first() -> None:
    body = "<T><v>" + "<![CDATA[" * 100_000 + "</v></T>"
    parsed = parse_action("<ACTION>" + body + "</ACTION>")
    assert parsed.error is not None and "never closed" in parsed.error


def test_a_block_over_the_size_limit_is_refused_with_the_numbers() -> None:
    text = "<ACTION><T><v>" + "x" * 2000 + "</v></T></ACTION>"
    parsed = parse_action(text, max_chars=1000)
    assert parsed.calls == []
    assert parsed.error == "the block is 2014 characters long; the limit is 1000"


def test_nesting_beyond_the_limit_is_refused() -> None:
    deep = "<a>" * (MAX_DEPTH + 1) + "x" + "</a>" * (MAX_DEPTH + 1)
    parsed = parse_action(f"<ACTION><T>{deep}</T></ACTION>")
    assert parsed.error is not None and f"more than {MAX_DEPTH} levels" in parsed.error
    assert parse_action("<ACTION><T><a><b>x</b></a></T></ACTION>").error is None


def test_the_hardened_parser_refuses_entities_that_reach_it() -> None:
    # parse_block's scan stops declarations first; the defusedxml parser is the second line.
    from defusedxml.sax import make_parser  # type: ignore[import-untyped]

    parser = make_parser()
    parser.forbid_dtd = True
    with pytest.raises(Exception, match="DTD"):
        parser.feed('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')
    with pytest.raises(MalformedAction, match="<!DOCTYPE"):
        parse_block('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')


def test_tags_for_names_that_are_not_xml_names() -> None:
    assert to_tag("get_bin") == "get_bin"
    assert to_tag("3d-render") == "_3d-render"
    assert to_tag("-dash") == "_-dash"
    assert to_tag("page[size]") == "_page_x005B_size_x005D_"
    registry = protocol_registry()
    parsed = parse_action("<ACTION><_3D-RENDER><scene>s</scene></_3D-RENDER></ACTION>", registry)
    assert [c.name for c in parsed.calls] == ["3d-render"]


def test_case_is_not_guessed_when_two_tools_differ_only_in_case() -> None:
    from toolkit import ToolSpec

    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    specs = [ToolSpec("Run", "a", schema), ToolSpec("RUN", "b", schema)]
    parsed = parse_action("<ACTION><run><x>1</x></run></ACTION>", specs)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("run", {"x": "1"})]


def test_observations() -> None:
    ok = ToolResult(content="sunny", tool="ReadWorldStateTool")
    assert format_observation(ok) == (
        "Observation: Tool ReadWorldStateTool executed successfully. Result: sunny"
    )
    structured = ToolResult(content="", structured={"n": 1}, tool="t")
    assert format_observation(structured, "t").endswith('Result: {"n": 1}')
    failed = ToolResult.failure(ToolError("Bin B-9 does not exist.", code=ErrorCode.INVALID_PARAMS))
    assert format_observation(failed, "get_bin") == (
        "Observation: Error [INVALID_PARAMS] Bin B-9 does not exist."
    )
    assert (
        format_observation("Error [DENIED] Not allowed.")
        == "Observation: Error [DENIED] Not allowed."
    )
    assert format_observation("boom", code="TIMEOUT") == "Observation: Error [TIMEOUT] boom"
    assert malformed_observation("mismatched tag at line 1, column 3 of the block").startswith(
        "Observation: Malformed XML in ACTION block: mismatched tag at line 1, column 3"
    )


def test_registry_results_become_observations_with_the_registry_message() -> None:
    registry = protocol_registry()
    parsed = parse_action("<ACTION><nope><a>1</a></nope></ACTION>", registry)
    result = registry.call_sync(parsed.calls[0].name, parsed.calls[0].arguments)
    text = format_observation(result, parsed.calls[0].name)
    assert text.startswith("Observation: Error [TOOL_NOT_FOUND]") and "Available tools" in text
