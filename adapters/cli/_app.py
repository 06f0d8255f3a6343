"""The typer application behind the ``toolkit`` console script."""

from __future__ import annotations

import importlib
import logging

import typer

from adapters.cli._core_commands import call_command, inspect_command

app = typer.Typer(
    name="toolkit",
    help="Business functions as LLM tools: inspect, call, connect MCP servers, serve, demo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("inspect")(inspect_command)
app.command("call")(call_command)

# Sub-commands that live with their adapters; each is optional so a broken or missing extra
# never takes the whole CLI down.
_MOUNTS = (
    ("adapters.mcp_client._cli", "mcp_app", "mcp"),
    ("adapters.mcp_server._cli", "serve_cli", "serve"),
    ("adapters.cli._demo", "demo_command", "demo"),
    ("adapters.cli._calls", "calls_command", "calls"),
)


def _mount() -> None:
    for module_name, attribute, name in _MOUNTS:
        try:
            value = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            logging.getLogger("toolkit.cli").debug("%s not available: %s", name, exc)
            continue
        if isinstance(value, typer.Typer):
            app.add_typer(value, name=name)
        else:
            app.command(name)(value)


_mount()


def main() -> None:
    """Entry point of the ``toolkit`` console script."""
    app()
