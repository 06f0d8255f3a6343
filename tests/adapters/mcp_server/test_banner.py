"""``toolkit serve`` says in one line what a client will see listed, the same way in every mode:
the tools (with ``--tool-search``, the two listed and how many they reach), the resources and the
prompts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from adapters.mcp_server import ServeSettings
from adapters.mcp_server._banner import serving_line
from adapters.mcp_server._serve import _workers_line
from tests.support.served_resources import registry as served
from toolkit import ToolRegistry

ROOT = Path(__file__).resolve().parents[3]
TOOLKIT = str(Path(sys.executable).with_name("toolkit"))
TARGET = "tests.support.served_resources"  # 1 tool, 2 resources and a template, 2 prompts


def _first_stdio_line(*args: str) -> str:
    """The banner of a stdio server, which stops when its stdin closes."""
    done = subprocess.run(
        [TOOLKIT, "serve", TARGET, *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stderr.splitlines() if line.startswith("Serving "))


def test_stdio_says_what_is_listed_resources_and_prompts_included() -> None:
    assert _first_stdio_line() == (
        f"Serving 1 tool, 3 resources and 2 prompts from {TARGET} over stdio "
        "(MCP messages on stdin/stdout; Ctrl-C stops)"
    )


def test_with_tool_search_it_says_the_two_tools_listed() -> None:
    assert _first_stdio_line("--tool-search", "3").startswith(
        "Serving 2 tools (search_tools and call_tool, which reach the 1 tool; the 3 most used "
        "tools join them once called), 3 resources and 2 prompts from "
    )


def test_workers_say_it_in_the_same_shape() -> None:
    settings = ServeSettings(target=TARGET, tool_search=0, port=8123, workers=4)
    line = _workers_line(settings)
    single = serving_line(served, TARGET, "at http://127.0.0.1:8123/mcp", tool_search=0)
    assert line == single + " with 4 workers"
    assert line.startswith("Serving 2 tools (search_tools and call_tool, which reach the 1 tool)")
    one = ServeSettings(target=TARGET, port=8123, workers=1)
    assert _workers_line(one).endswith(" with 1 worker")


def test_plurals_are_plural_and_a_single_thing_is_not() -> None:
    assert serving_line(ToolRegistry(), "x", "over stdio") == (
        "Serving 0 tools, 0 resources and 0 prompts from x over stdio"
    )
