"""Importing the library stays light: jsonschema and tenacity are imported when needed.

Where ``rfc3987-syntax`` is installed (JupyterLab brings it), ``import jsonschema`` compiles
dozens of grammars and takes one to three seconds: every ``toolkit serve`` would pay it at
start-up, before answering a client, and every notebook kernel at its first import. tenacity
loads its tornado support wherever tornado is installed (40 ms), for a retry's backoff only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolkit import RegistrationError, ToolRegistry, mcp_tool

ROOT = Path(__file__).resolve().parents[2]


# langchain-core imports tenacity itself, so the LangChain adapters are checked for jsonschema.
@pytest.mark.parametrize(
    ("module", "heavy"),
    [
        ("toolkit", ("jsonschema", "tenacity")),
        ("adapters.mcp_server", ("jsonschema", "tenacity")),
        ("adapters.mcp_client", ("jsonschema", "tenacity")),
        ("adapters.http", ("jsonschema", "tenacity")),
        ("adapters.openai", ("jsonschema", "tenacity")),
        ("adapters.langgraph", ("jsonschema",)),
        ("adapters.langchain", ("jsonschema",)),
    ],
)
def test_importing_leaves_heavy_libraries_for_later(module: str, heavy: tuple[str, ...]) -> None:
    code = f"import sys, {module}; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_tool_with_examples_is_still_checked_when_registered() -> None:
    # The check that needs jsonschema imports it on first use.
    @mcp_tool(examples=[{"a": "three"}])
    def double(a: int) -> int:
        """Double a number.

        Args:
            a: The number.
        """
        return 2 * a

    with pytest.raises(RegistrationError, match="does not fit its input schema"):
        ToolRegistry().register(double)

    @mcp_tool(examples=[{"a": 3}])
    def triple(a: int) -> int:
        """Triple a number.

        Args:
            a: The number.
        """
        return 3 * a

    registry = ToolRegistry()
    registry.register(triple)
    assert registry.call_sync("triple", {"a": 2}).content == "6"
