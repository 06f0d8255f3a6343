"""Importing an adapter without its extra raises an ImportError that names the extra."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from adapters._extras import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parents[2]

_HIDE = """
import sys
for name in {hidden!r}:
    sys.modules[name] = None  # as if the distribution were not installed
try:
    import {package}
except ImportError as exc:
    print(type(exc).__name__, exc.extra, exc.name)
    print(exc)
else:
    print("imported")
"""


def _import_without(package: str, *hidden: str) -> list[str]:
    code = _HIDE.format(hidden=list(hidden), package=package)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("package", "hidden", "extra"),
    [
        ("adapters.mcp_client", "mcp", "mcp"),
        ("adapters.mcp_server", "uvicorn", "mcp"),
        ("adapters.langchain", "langchain_core", "langchain"),
        ("adapters.langgraph", "jinja2", "langgraph"),
        ("adapters.cli", "typer", "cli"),
    ],
)
def test_adapter_without_its_extra_names_the_extra(package: str, hidden: str, extra: str) -> None:
    head, message = _import_without(package, hidden)
    assert head == f"MissingExtraError {extra} {hidden}"
    assert f"pip install 'mcp-toolkit[{extra}]'" in message and hidden in message
    assert message.startswith(f"{package} needs the '{extra}' extra")


def test_core_and_the_openai_format_need_no_extra() -> None:
    heavy = ("mcp", "langchain_core", "langgraph", "httpx", "httpx2", "typer", "rich", "yaml")
    assert _import_without("toolkit", *heavy) == ["imported"]
    assert _import_without("adapters.openai", *heavy) == ["imported"]


def test_require_checks_dotted_modules_and_every_extra_is_declared() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(EXTRAS) <= set(declared)
    all_extra = " ".join(declared["all"])
    assert all(name in all_extra for name in EXTRAS)
    ours = [Requirement(r) for r in declared["dev"] if r.startswith("mcp-toolkit[")]
    assert any("all" in r.extras for r in ours)  # dev has every adapter
    require("adapters.langgraph", "langgraph")  # installed here: no error
    EXTRAS["_probe"] = ("no_such_module_xyz.sub",)
    try:
        with pytest.raises(MissingExtraError) as caught:
            require("adapters.probe", "_probe")
        assert caught.value.missing == ["no_such_module_xyz.sub"]
    finally:
        del EXTRAS["_probe"]
