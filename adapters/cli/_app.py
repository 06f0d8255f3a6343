"""The typer application behind the ``toolkit`` console script.

Sub-commands are imported when they run (see :mod:`adapters.cli._lazy`), so ``toolkit --help``
and ``toolkit --version`` start fast and a missing extra never takes the whole CLI down.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer

from adapters.cli._help import flags_take_no_value
from adapters.cli._lazy import LazyGroup

__all__ = ["app", "main"]

flags_take_no_value()

_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

app = typer.Typer(
    name="toolkit",
    cls=LazyGroup,
    help="Business functions as LLM tools: inspect, call, connect MCP servers, serve, demo.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-toolkit")
    except PackageNotFoundError:
        return "unknown (not installed as a package)"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mcp-toolkit {_version()} (Python {sys.version.split()[0]})")
        raise typer.Exit()


def setup_logging(verbose: bool, log_level: str | None) -> None:
    """Send log records to stderr: ``--log-level`` if given, DEBUG with ``-v``; else leave
    logging as the commands set it (each says what a person needs to know on its own)."""
    if not verbose and log_level is None:
        return
    level = (log_level or "DEBUG").upper()
    if level not in _LEVELS:
        raise typer.BadParameter(
            f"{log_level!r} is not a level; use one of {', '.join(_LEVELS)}.",
            param_hint="--log-level",
        )
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s", force=True
    )
    for handler in logging.getLogger().handlers:  # a logger set lower (toolkit, for the MCP
        handler.setLevel(level)  # log relay) must not print below the level asked for here


def on_path(directory: str) -> None:
    """Put ``directory`` first on ``sys.path``, as uvicorn and pytest do for the caller's code."""
    if directory not in sys.path:
        sys.path.insert(0, directory)


@app.callback()
def _root(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log what happens (DEBUG) on stderr.")
    ] = False,
    log_level: Annotated[
        str | None,
        typer.Option("--log-level", help="Log level on stderr: DEBUG, INFO, WARNING, ERROR."),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """Business functions as LLM tools: inspect, call, connect MCP servers, serve, demo.

    -v/--verbose and --log-level work before or after the sub-command.
    """
    setup_logging(verbose, log_level)
    on_path(os.getcwd())


def main() -> None:
    """Entry point of the ``toolkit`` console script."""
    app()
