"""Load-time checks of HTTP tool configs: every problem at once, each naming tool, field, fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.http import HttpConfigError, HttpToolConfig, HttpToolset
from tests.support.orders_service import EXAMPLE_CONFIG


def test_every_problem_of_every_tool_is_reported_at_once() -> None:
    bad = {
        "a": {
            "endpoint": "https://api.test/users/{userId}/x/{other}",
            "method": "FETCH",
            "headers": {"Bad Header": "1"},
            "parameters": [
                {"name": "userId", "position": "path"},
                {"name": "userId", "position": "query"},
                {"name": "orphan", "position": "path"},
                {"name": "X Bad", "position": "header"},
                {"name": "k", "position": "cookie", "parameter_type": "Date"},
            ],
            "response_template": "line one\n{% for x in %}",
        },
        "b": {"HTTP": {"endpoint": "ftp://files.test/x"}},
        "c": {"endpoint": "/relative/path"},
    }
    with pytest.raises(HttpConfigError) as caught:
        HttpToolset.from_config(bad)
    text = str(caught.value)
    expected = [
        "a.method: 'FETCH' is not an HTTP method",
        "a.endpoint: placeholder {other} has no parameter",
        "a.parameters[1] ('userId'): duplicate parameter name",
        "a.parameters[2] ('orphan'): path parameter has no {orphan} placeholder",
        "a.parameters[3] ('X Bad'): 'X Bad' is not a valid HTTP header name",
        "a.parameters[4] ('k').position: 'cookie' is unknown",
        "a.parameters[4] ('k').parameter_type: 'Date' is unknown",
        "a.headers: 'Bad Header' is not a valid HTTP header name",
        "a.response_template: does not compile (line 2:",
        "b.endpoint: 'ftp://files.test/x' is not an absolute http(s) URL",
        "c.endpoint: '/relative/path' is not an absolute http(s) URL",
    ]
    for line in expected:
        assert line in text, line
    assert len(caught.value.problems) == len(expected)


def test_an_unset_variable_is_a_load_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    config = {
        "t": {
            "endpoint": "https://api.test/x",
            "headers": {"X-Key": "${NO_SUCH_TOKEN_VAR}", "X-Opt": "${ALSO_UNSET_VAR:-dflt}"},
        }
    }
    with pytest.raises(HttpConfigError, match="NO_SUCH_TOKEN_VAR is not set") as caught:
        HttpToolset.from_config(config)
    assert "ALSO_UNSET_VAR" not in str(caught.value)


def test_types_are_case_insensitive_and_schemas_override_them() -> None:
    toolset = HttpToolset.from_config(
        {
            "t": {
                "endpoint": "https://api.test/x",
                "method": "post",
                "parameters": [
                    {"name": "n", "parameter_type": "iNtEgEr", "required": True},
                    {"name": "tags", "schema": {"type": "array", "items": {"type": "string"}}},
                    {"name": "mode", "enum_values": ["a", "b"], "default_value": "a"},
                ],
            }
        }
    )
    schema = toolset.tools[0].spec.input_schema
    assert schema["properties"]["n"] == {"type": "integer"}
    assert schema["properties"]["tags"]["items"] == {"type": "string"}
    assert schema["properties"]["mode"] == {"type": "string", "enum": ["a", "b"], "default": "a"}
    assert schema["required"] == ["n"]


def test_files_in_json_and_yaml_and_wrapped_configs_load(tmp_path: Path) -> None:
    json_file = tmp_path / "tools.json"
    json_file.write_text(json.dumps(EXAMPLE_CONFIG))
    yaml_file = tmp_path / "tools.yaml"
    yaml_file.write_text(
        "httpTools:\n  ping:\n    endpoint: https://api.test/ping\n    method: HEAD\n"
    )
    assert [t.name for t in HttpToolset.from_file(json_file).tools] == ["get_order"]
    assert [t.name for t in HttpToolset.from_file(yaml_file).tools] == ["ping"]
    typed = HttpToolConfig(endpoint="https://api.test/v")
    assert HttpToolset.from_config({"v": typed}).tools[0].config is typed


def test_unreadable_and_shapeless_files_say_what_to_write(tmp_path: Path) -> None:
    with pytest.raises(HttpConfigError, match="cannot read the file"):
        HttpToolset.from_file(tmp_path / "missing.json")
    empty = tmp_path / "empty.json"
    empty.write_text('{"tools": {}}')
    with pytest.raises(HttpConfigError, match="no 'httpTools'"):
        HttpToolset.from_file(empty)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(HttpConfigError, match="not valid JSON/YAML"):
        HttpToolset.from_file(broken)
