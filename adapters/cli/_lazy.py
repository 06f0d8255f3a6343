"""A command group that imports each sub-command's adapter only when that command runs.

``toolkit --help`` lists every command from the short help written here, so it costs little
more than starting Python; ``toolkit serve`` imports the MCP server and nothing else. A command
whose extra is not installed still appears and, when run, says which extra to install.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup

from adapters._extras import install_hint
from adapters.cli._typer_private import Command, Context

__all__ = ["LAZY_COMMANDS", "LazyCommand", "LazyGroup"]


class LazyCommand(NamedTuple):
    """Where a sub-command lives and how ``--help`` describes it before it is imported."""

    module: str
    attribute: str
    help: str
    extra: str | None = None


#: The sub-commands, in the order ``toolkit --help`` lists them.
LAZY_COMMANDS: dict[str, LazyCommand] = {
    "inspect": LazyCommand(
        "adapters.cli._core_commands", "inspect_command", "Show the tools found in TARGET."
    ),
    "call": LazyCommand(
        "adapters.cli._core_commands", "call_command", "Call TOOL from TARGET with JSON arguments."
    ),
    "mcp": LazyCommand(
        "adapters.cli._mcp",
        "mcp_app",
        "Talk to the MCP servers of a config file: test, list, call.",
        "mcp",
    ),
    "serve": LazyCommand(
        "adapters.cli._serve",
        "serve_cli",
        "Serve the tools of TARGET as an MCP server.",
        "mcp",
    ),
    "demo": LazyCommand(
        "adapters.cli._demo",
        "demo_command",
        "Watch an agent use local functions and remote MCP tools from one registry.",
        "langgraph",
    ),
    "calls": LazyCommand(
        "adapters.cli._calls",
        "calls_command",
        "List recent calls from a call log (toolkit serve --call-log).",
    ),
}


class _Listed(TyperCommand):
    """What ``--help`` shows for a command that is not imported yet."""


def _load(name: str, entry: LazyCommand) -> Command:
    try:
        value = getattr(importlib.import_module(entry.module), entry.attribute)
    except ImportError as exc:
        return _missing(name, entry, exc)
    if not isinstance(value, typer.Typer):
        single = typer.Typer(add_completion=False)
        single.command(name)(value)
        value = single
    command = typer.main.get_command(value)
    command.name = name
    return command


def _missing(name: str, entry: LazyCommand, exc: ImportError) -> Command:
    hint = install_hint(entry.extra) if entry.extra else "pip install -e ."

    def fail() -> None:
        typer.echo(
            f"error: `toolkit {name}` needs a package that is not installed ({exc}). "
            f"Install it with: {hint}",
            err=True,
        )
        raise typer.Exit(2)

    return TyperCommand(
        name,
        callback=fail,
        help=entry.help,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )


class LazyGroup(TyperGroup):
    """A typer group whose commands in :data:`LAZY_COMMANDS` are imported on first use."""

    def list_commands(self, ctx: Context) -> list[str]:
        """Eager commands first, then the lazy ones in their listed order."""
        eager = [n for n in super().list_commands(ctx) if n not in LAZY_COMMANDS]
        return eager + list(LAZY_COMMANDS)

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The command, or a stand-in carrying its help while it is not imported."""
        if cmd_name in self.commands or cmd_name not in LAZY_COMMANDS:
            return super().get_command(ctx, cmd_name)
        entry = LAZY_COMMANDS[cmd_name]
        return _Listed(cmd_name, help=entry.help, short_help=entry.help)

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        """Import the command that is about to run."""
        name, command, rest = super().resolve_command(ctx, args)
        if isinstance(command, _Listed) and name is not None:
            command = _load(name, LAZY_COMMANDS[name])
            self.commands[name] = command
        return name, command, rest

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Accept the global options after the sub-command too (``toolkit call -v ...``)."""
        return super().parse_args(ctx, hoist_global_options(args))


_GLOBAL_FLAGS = {"-v", "--verbose"}
_GLOBAL_VALUED = {"--log-level"}


def hoist_global_options(args: list[str]) -> list[str]:
    """Move ``-v``/``--verbose``/``--log-level LEVEL`` to the front, wherever they were given.

    Everything after ``--`` is left alone.
    """
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg in _GLOBAL_FLAGS or any(arg.startswith(f"{o}=") for o in _GLOBAL_VALUED):
            front.append(arg)
        elif arg in _GLOBAL_VALUED and i + 1 < len(args):
            front.extend(args[i : i + 2])
            i += 1
        else:
            rest.append(arg)
        i += 1
    return front + rest
