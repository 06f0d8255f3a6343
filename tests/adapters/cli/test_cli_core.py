"""``toolkit inspect`` and ``toolkit call`` against the examples, a package name and a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from adapters.cli import _render, app

ROOT = Path(__file__).resolve().parents[3]
APP = "adapters.demo.warehouse_app:registry"
TOOLKIT = Path(sys.executable).parent / "toolkit"

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich wraps at 80 columns without a terminal; the assertions read whole sentences."""
    for console in (_render.console, _render.err_console):
        monkeypatch.setattr(console, "width", 250)


def _flat(text: str) -> str:
    """Panel text without its frame, whitespace collapsed."""
    return " ".join(text.replace("│", " ").split())


@pytest.fixture
def tool_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """Write a module of tools to a uniquely named .py file; undo its import afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    names: list[str] = []

    def write(source: str) -> str:
        name = f"cli_tools_{uuid.uuid4().hex[:8]}"
        names.append(name)
        path = tmp_path / f"{name}.py"
        path.write_text("from toolkit import mcp_tool\n" + textwrap.dedent(source))
        return str(path)

    yield write
    for name in names:
        sys.modules.pop(name, None)


SHIP = '''
@mcp_tool
def ship(order_id: int, express: bool = False) -> str:
    """Ship an order.

    Args:
        order_id: The order to ship.
    """
    return f"shipped {order_id}"
'''


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLKIT), *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


# -- the real console script --------------------------------------------------------------------


def test_console_script_inspect_json_is_valid_and_check_passes() -> None:
    done = _run("inspect", APP, "--json", "--check")
    assert done.returncode == 0, done.stderr
    specs = json.loads(done.stdout)
    assert {s["name"] for s in specs} >= {"query_bins", "move_stock", "reports_utilisation"}
    for spec in specs:
        Draft202012Validator.check_schema(spec["input_schema"])
        assert spec["input_schema"]["type"] == "object"
        if spec["output_schema"] is not None:
            Draft202012Validator.check_schema(spec["output_schema"])
    query = next(s for s in specs if s["name"] == "query_bins")
    assert query["input_schema"]["properties"]["status"]["enum"] == ["active", "locked"]
    assert query["annotations"] == {"readOnlyHint": True}
    assert (
        "operator"
        not in next(s for s in specs if s["name"] == "move_stock")["input_schema"]["properties"]
    )
    assert "check passed: 9 tools" in done.stderr


def test_console_script_call_failure_exits_1_with_the_message() -> None:
    done = _run("call", APP, "move_stock", '{"sku": "WIDGET-1", "from_bin": "A-01-01"}')
    assert done.returncode == 1
    assert "INVALID_PARAMS" in done.stdout
    assert "to_bin" in done.stdout and "quantity" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_output_that_is_not_a_terminal_is_no_wider_than_a_log_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(
        [str(TOOLKIT), "call", APP, "get_bin", '{"code": "A-01-01"}'],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("╭") and "get_bin ✓" in lines[0]
    assert max(len(line) for line in lines) == 100  # the panel, no longer 200 columns wide


# -- inspect ------------------------------------------------------------------------------------


def test_inspect_table_shows_names_types_and_descriptions() -> None:
    result = runner.invoke(app, ["inspect", APP])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "9 tools in adapters.demo.warehouse_app:registry" in out
    for fragment in ("query_bins", "tenant_code", "Tenant code of the caller", "read-only"):
        assert fragment in out


def test_inspect_package_name_with_check() -> None:
    result = runner.invoke(app, ["inspect", "adapters.demo.warehouse", "--check"])
    assert result.exit_code == 0, result.output
    assert "check passed: 7 tools, all documented." in result.stderr


def test_inspect_file_path_json(tool_file: Callable[[str], str]) -> None:
    path = tool_file(SHIP)
    result = runner.invoke(app, ["inspect", path, "--json"])
    assert result.exit_code == 0, result.output
    (spec,) = json.loads(result.stdout)
    assert spec["name"] == "ship" and spec["input_schema"]["required"] == ["order_id"]
    assert spec["source"].endswith(f"{Path(path).name}:3)")


def test_check_fails_on_an_undocumented_parameter(tool_file: Callable[[str], str]) -> None:
    result = runner.invoke(app, ["inspect", tool_file(SHIP), "--check"])
    assert result.exit_code == 1
    assert "ship.express: parameter is not documented (add it under Args:)" in result.stderr
    assert "ship" in result.stdout  # the table is still shown


def test_inspect_says_which_parameters_are_optional_and_their_defaults(
    tool_file: Callable[[str], str],
) -> None:
    result = runner.invoke(app, ["inspect", tool_file(SHIP)])
    assert result.exit_code == 0, result.output
    assert "express: boolean (optional, default false)" in result.stdout
    assert "order_id: integer —" in result.stdout  # required: no mark


LINE = '''
from dataclasses import dataclass


@dataclass
class Line:
    """A line.

    Attributes:
        sku: The product code.
    """

    sku: str
    note: str = ""


@mcp_tool
def bill(line: Line) -> str:
    """Bill a line.

    Args:
        line: The line.
    """
    return line.sku
'''


def test_check_notices_an_undocumented_field_of_a_dataclass_parameter(
    tool_file: Callable[[str], str],
) -> None:
    result = runner.invoke(app, ["inspect", tool_file(LINE), "--check"])
    assert result.exit_code == 1
    assert "bill.line.note: field is not documented (add it under Attributes:" in result.stderr
    assert "bill.line.sku" not in result.stderr  # documented by the class's Attributes:


def test_check_fails_on_a_tool_without_description(tool_file: Callable[[str], str]) -> None:
    path = tool_file("@mcp_tool\ndef ping() -> str:\n    return 'pong'\n")
    result = runner.invoke(app, ["inspect", path, "--check"])
    assert result.exit_code == 1
    assert "ping: no description (add a docstring)" in result.stderr


def test_invalid_tool_name_exits_2_with_the_fix(tool_file: Callable[[str], str]) -> None:
    path = tool_file(
        "@mcp_tool(name='ship order')\ndef ship(order_id: int) -> str:\n    return ''\n"
    )
    result = runner.invoke(app, ["inspect", path, "--check"])
    assert result.exit_code == 2
    assert "'ship order'" in result.stderr and "name='ship_order'" in result.stderr


@pytest.mark.parametrize(
    ("target", "fragment"),
    [
        ("no_such_module_for_cli", "'no_such_module_for_cli' was not found"),
        ("adapters.demo.warehouse_app:nothing", "has no attribute 'nothing'"),
        ("json", "No tools found in 'json'"),
    ],
)
def test_bad_targets_exit_2_with_a_message(target: str, fragment: str) -> None:
    result = runner.invoke(app, ["inspect", target])
    assert result.exit_code == 2
    assert fragment in result.stderr


def test_a_file_that_does_not_import_exits_2_with_the_line(tool_file: Callable[[str], str]) -> None:
    path = tool_file("def broken(:\n")
    result = runner.invoke(app, ["inspect", path])
    assert result.exit_code == 2
    assert "SyntaxError" in result.stderr and "(line 2)" in result.stderr
    assert "Traceback" not in result.stderr


# -- call ---------------------------------------------------------------------------------------


def test_call_success_prints_the_json() -> None:
    result = runner.invoke(app, ["call", APP, "get_bin", '{"code": "A-01-01"}'])
    assert result.exit_code == 0, result.output
    assert '"warehouse_id": 1' in result.stdout and "get_bin ✓" in result.stdout


def test_call_json_output_from_a_file(tool_file: Callable[[str], str]) -> None:
    path = tool_file(SHIP)
    result = runner.invoke(app, ["call", path, "ship", '{"order_id": "12"}', "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["is_error"] is False and payload["content"] == "shipped 12"


@pytest.mark.parametrize(
    ("tool", "arguments", "fragments"),
    [
        ("get_bins", "{}", ["TOOL_NOT_FOUND", "Did you mean 'get_bin'"]),
        ("get_bin", "{code", ["PARSE_ERROR", "not a JSON object"]),
        ("get_bin", '{"code": "Z-9"}', ["EXECUTION_ERROR", "bin Z-9 not found"]),
    ],
)
def test_call_failure_exits_1_and_shows_the_message(
    tool: str, arguments: str, fragments: list[str]
) -> None:
    result = runner.invoke(app, ["call", APP, tool, arguments])
    assert result.exit_code == 1
    for fragment in fragments:
        assert fragment in _flat(result.stdout)


def test_call_failure_as_json_carries_the_code() -> None:
    result = runner.invoke(app, ["call", APP, "get_bin", "{}", "--json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["is_error"] is True and payload["error"]["code"] == "INVALID_PARAMS"
