"""``toolkit demo --protocol xml``: the whole demo run by a model that only writes text."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from adapters.cli import app
from adapters.cli._demo_model import ModelChoice
from adapters.cli._demo_run import DemoOptions, run_demo

OFFLINE = ModelChoice(api_key=None, name="unused", base_url=None)


@pytest.mark.anyio
async def test_the_demo_runs_through_the_action_protocol() -> None:
    buffer = io.StringIO()
    options = DemoOptions(OFFLINE, approve=True, remote=False, protocol="xml")
    await run_demo(options, Console(file=buffer, width=160))
    text = " ".join(buffer.getvalue().replace("│", " ").split())
    assert "I will call get_bin." in text  # the text before the ACTION block is what shows
    assert "<ACTION>" not in text
    assert "get_bin ✗ EXECUTION_ERROR" in text  # the error observation reached the model…
    assert 'get_bin(code="A-01-01")' in text  # …which corrected the call
    assert "Bin A-02-01 is deleted." in text
    assert "call log: 4 calls in 5 turns, 1 failed" in text


def test_an_unknown_protocol_is_refused_with_the_choices() -> None:
    result = CliRunner().invoke(app, ["demo", "--protocol", "json"])
    assert result.exit_code == 2
    assert "--protocol must be native or xml" in result.output
