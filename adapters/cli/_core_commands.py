"""``toolkit inspect`` and ``toolkit call``."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from adapters.cli._render import console, err_console, result_panel, spec_table
from toolkit import RegistrationError, ToolRegistry, ToolSpec
from toolkit.loader import load_registry


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


def _problems(spec: ToolSpec) -> list[str]:
    found = []
    if not spec.description.strip():
        found.append(f"{spec.name}: no description (add a docstring)")
    for name, schema in spec.parameters.items():
        if not (isinstance(schema, dict) and schema.get("description")):
            found.append(f"{spec.name}.{name}: parameter is not documented (add it under Args:)")
    return found


def inspect_command(
    target: Annotated[str, typer.Argument(help="Module, package, module:attribute or file path.")],
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
        console.print(spec_table(specs, title=f"{len(specs)} tools in {target}"))
    if check:
        problems = [p for s in specs for p in _problems(s)]
        for problem in problems:
            err_console.print(f"[yellow]check:[/] {problem}")
        if problems:
            raise typer.Exit(1)
        err_console.print(f"[green]check passed:[/] {len(specs)} tools, all documented.")


def call_command(
    target: Annotated[str, typer.Argument(help="Module, package, module:attribute or file path.")],
    tool: Annotated[str, typer.Argument(help="Tool name.")],
    arguments: Annotated[str, typer.Argument(help="Arguments as a JSON object.")] = "{}",
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Call TOOL from TARGET with JSON arguments, as a model would. Exit 1 on failure."""
    registry = _load(target)
    result = registry.call_sync(tool, arguments)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        console.print(result_panel(result))
    if result.is_error:
        raise typer.Exit(1)
