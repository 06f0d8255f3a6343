"""``toolkit serve app.py`` serves the module's own ``registry`` (its settings, its resources),
not a fresh scan of the module's functions, and says which object it served."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from toolkit import ToolRegistry
from toolkit.toolsets.loader import load_registry

ROOT = Path(__file__).resolve().parents[3]

APP = '''
from toolkit import ToolRegistry, mcp_resource, mcp_tool


@mcp_tool
def quote(weight: float) -> dict[str, float]:
    """Price a parcel.

    Args:
        weight: Kilograms.
    """
    return {"price": weight * 2}


@mcp_resource("rates://eu")
def rates() -> str:
    """The rate card, registered by hand below."""
    return "2 per kg"


registry = ToolRegistry(strict_output=True)
registry.register(quote)
'''


def _app(tmp_path: Path, name: str, text: str = APP) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return path


@pytest.mark.anyio
async def test_serve_app_py_serves_the_modules_own_registry(tmp_path: Path) -> None:
    app = _app(tmp_path, "shipping_app")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", str(app)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    async with Client(params, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        resources = (await client.list_resources()).resources
    (quote,) = tools
    # strict_output=True is the module registry's setting: only it publishes the schema.
    assert quote.name == "quote" and quote.output_schema is not None
    assert resources == []  # not scanned: the registry holds no resource


def test_the_log_says_which_object_was_served(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app(tmp_path, "said_app")
    with caplog.at_level(logging.INFO, logger="toolkit"):
        registry = load_registry(str(app))
    module = sys.modules["said_app"]
    assert registry is module.registry
    assert f"serving {app}:registry, the module's own registry" in caplog.text

    two = _app(
        tmp_path,
        "two_app",
        APP.replace(
            "registry = ToolRegistry", "admin = ToolRegistry()\nmain = ToolRegistry"
        ).replace("registry.register", "main.register"),
    )
    with caplog.at_level(logging.INFO, logger="toolkit"):
        scanned = load_registry(str(two))
    assert isinstance(scanned, ToolRegistry) and scanned.names() == ["quote"]
    assert scanned is not sys.modules["two_app"].main
    assert "holds several registries (admin, main)" in caplog.text
