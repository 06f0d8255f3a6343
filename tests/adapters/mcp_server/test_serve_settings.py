"""``ServeSettings``: one value whose fields carry their flag, variable and help."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.mcp_server import ServeSettings
from adapters.mcp_server._settings import knobs
from adapters.sources import SOURCES

ROOT = Path(__file__).resolve().parents[3]


def test_every_field_carries_its_help_and_is_set_somewhere() -> None:
    assert [k.name for k, _ in knobs()] == [f.name for f in dataclasses.fields(ServeSettings)]
    for knob, _ in knobs():
        assert knob.help.endswith((".", ")")), knob
        assert knob.flag is not None or knob.env is not None, knob
        assert knob.env is None or knob.env.startswith("TOOLKIT_"), knob


def test_the_source_fields_take_their_flag_from_the_source_table() -> None:
    flags = {knob.name: knob.flag for knob, _ in knobs()}
    for row in SOURCES:
        assert flags[row.setting] == row.flag


def test_the_environment_is_read_and_written_from_the_fields() -> None:
    settings = ServeSettings(
        target="m:r",
        allowed_hosts=("a", "b"),
        page_size=5,
        call_log="c.db",
        metrics=True,
        telemetry=False,
        caller_header="X-User",
        tool_search=3,
    )
    env = settings.to_env()
    assert env["TOOLKIT_ALLOWED_HOSTS"] == "a,b" and env["TOOLKIT_OTEL"] == "0"
    assert "TOOLKIT_NAME" not in env  # None is left out, not written as text
    assert ServeSettings.from_env(env) == settings
    assert "c.db" not in repr(settings)  # a call log URL may hold a password


def test_the_deployment_guide_lists_every_variable() -> None:
    guide = (ROOT / "docs" / "DEPLOY.md").read_text()
    for knob, _ in knobs():
        assert knob.env is None or f"| `{knob.env}` |" in guide, knob.env


def test_a_value_that_does_not_read_is_refused_with_its_variable() -> None:
    with pytest.raises(ValueError, match=r"\$TOOLKIT_TOOL_SEARCH='many' is not a whole number"):
        ServeSettings.from_env({"TOOLKIT_TARGET": "m", "TOOLKIT_TOOL_SEARCH": "many"})
    with pytest.raises(ValueError, match=r"\$TOOLKIT_METRICS='maybe' is neither on nor off"):
        ServeSettings.from_env({"TOOLKIT_TARGET": "m", "TOOLKIT_METRICS": "maybe"})


def test_the_command_lists_every_flag_with_its_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "adapters.mcp_server", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PYTHONPATH": str(ROOT), "COLUMNS": "250", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    for knob, _ in knobs():
        if knob.flag is not None and knob.flag.startswith("--"):
            assert knob.flag in done.stdout, knob.flag
