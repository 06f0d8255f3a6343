"""``toolkit inspect`` and ``toolkit call``."""

from __future__ import annotations

import json
import logging
import sys
import traceback
from typing import Annotated

import typer

from adapters.cli._approval import TerminalApprover
from adapters.cli._check import problems as check_problems
from adapters.cli._render import console, count, err_console, result_panel, spec_table
from toolkit import CallOptions, RegistrationError, ToolRegistry
from toolkit.toolsets.loader import load_registry

_TARGET_HELP = (
    "Module or package (app), module:attribute (app:registry, app:build_registry), "
    "or a file (app.py, ./app.py:registry). Looked up from the current directory."
)


def _load(target: str) -> ToolRegistry:
    try:
        if target.endswith((".json", ".yaml", ".yml")):
            return _load_http_tools(target)
        return load_registry(target)
    except (RegistrationError, ValueError) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None


def _load_http_tools(path: str) -> ToolRegistry:
    """A registry of the HTTP endpoint tools in a ``{"httpTools": ...}`` file."""
    from adapters.http import HttpToolset

    registry = ToolRegistry()
    HttpToolset.from_file(path).register_into(registry)
    return registry


def inspect_command(
    target: Annotated[str, typer.Argument(help=_TARGET_HELP)],
    as_json: Annotated[bool, typer.Option("--json", help="Print the specs as JSON.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 on undocumented tools or parameters.")
    ] = False,
) -> None:
    """Show the tools found in TARGET with their schemas."""
    registry = _load(target)
    specs = registry.specs()
    if as_json:
        typer.echo(json.dumps([s.to_dict() for s in specs], indent=2))
    else:
        console.print(spec_table(specs, title=f"{count(len(specs), 'tool')} in {target}"))
    if check:
        problems = [p for s in specs for p in check_problems(s)]
        for problem in problems:
            err_console.print(f"[yellow]check:[/] {problem}")
        if problems:
            raise typer.Exit(1)
        err_console.print(f"[green]check passed:[/] {count(len(specs), 'tool')}, all documented.")


class _Tracebacks(logging.Handler):
    """Keeps the tracebacks the invoker logs for unexpected exceptions, by call ref."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.found.append("".join(traceback.format_exception(*record.exc_info)))
            return
        # The invoker logs the scrubbed traceback in the message, after the first line.
        _, newline, rest = record.getMessage().partition("\n")
        if newline and rest.lstrip().startswith("Traceback"):
            self.found.append(rest + "\n")


def call_command(
    target: Annotated[str, typer.Argument(help=_TARGET_HELP)],
    tool: Annotated[str, typer.Argument(help="Tool name.")],
    arguments: Annotated[str, typer.Argument(help="Arguments as a JSON object.")] = "{}",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", help="Approve a destructive call without asking."),
    ] = False,
    show_traceback: Annotated[
        bool,
        typer.Option("--traceback", help="On failure, print the Python traceback on stderr."),
    ] = False,
    result_budget: Annotated[
        int | None,
        typer.Option(
            "--result-budget",
            min=0,
            help="Characters of the result to show, as a model would read it (default: the "
            "registry's budget, 100,000 unless it sets another; 0: the whole result).",
        ),
    ] = None,
) -> None:
    """Call TOOL from TARGET with JSON arguments, as a model would. Exit 1 on failure.

    A destructive tool asks first on a terminal; --yes approves it without asking.
    """
    registry = _load(target)
    approver = TerminalApprover(yes)
    # An approver the application configured on its registry decides; the terminal asks only
    # when there is none (or --yes overrides it).
    own = registry.approver
    use = approver if yes or own is None else None
    tracebacks = _Tracebacks()
    calls_log = logging.getLogger("toolkit.calls")
    calls_log.addHandler(tracebacks)
    try:
        options = CallOptions(approver=use, result_budget=result_budget)
        result = registry.call_sync(tool, arguments, options=options)
    finally:
        calls_log.removeHandler(tracebacks)
    if approver.refused:
        err_console.print(f"[red]not run:[/] {approver.refused}")
        raise typer.Exit(1)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        console.print(result_panel(result))
    if result.is_error:
        if show_traceback:
            for text in tracebacks.found or [
                "(no traceback: the tool reported this failure itself)\n"
            ]:
                sys.stderr.write(text)
        elif tracebacks.found:
            err_console.print("[dim]run again with --traceback to see where it failed[/]")
        raise typer.Exit(1)
