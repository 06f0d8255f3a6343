"""``toolkit serve`` refuses bad invocations with messages that name the fix."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from adapters.cli._serve import app
from adapters.mcp_server import ServeSettings, serve_command, token_from_env

TARGET = "tests.support.served_registry:registry"


def test_a_token_for_stdio_is_refused() -> None:
    with pytest.raises(ValueError, match="only applies to --transport http"):
        serve_command(ServeSettings(target=TARGET, token_env="SOME_TOKEN"))


def test_an_empty_token_variable_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVE_TEST_TOKEN", "  ")
    with pytest.raises(ValueError, match="SERVE_TEST_TOKEN is unset or empty"):
        serve_command(ServeSettings(target=TARGET, transport="http", token_env="SERVE_TEST_TOKEN"))
    monkeypatch.setenv("SERVE_TEST_TOKEN", "abc")
    assert token_from_env("SERVE_TEST_TOKEN") == "abc"


def test_an_unknown_transport_exits_2_with_a_message() -> None:
    result = CliRunner().invoke(app, [TARGET, "--transport", "carrier-pigeon"])
    assert result.exit_code == 2
    assert "use 'stdio' or 'http'" in result.output


def test_a_target_without_tools_exits_2_with_a_message() -> None:
    result = CliRunner().invoke(app, ["json"])
    assert result.exit_code == 2
    assert "No tools found" in result.output
