"""``toolkit serve``: the typer front end of :func:`adapters.mcp_server.serve_command`.

Its options are not written here: each is a field of :class:`adapters.mcp_server.ServeSettings`
that carries its flag and help, and :func:`serve_cli`'s signature is built from those fields.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Annotated, Any

import typer

from adapters.mcp_server import ServeSettings, serve_command
from adapters.mcp_server._settings import knobs

__all__ = ["app", "serve_cli"]


def _parameter(name: str, flag: str, help: str, metavar: str | None, hint: Any) -> Any:
    """One typer parameter for a field: its flag, help and type (a tuple is a repeated option)."""
    default = next(f.default for f in dataclasses.fields(ServeSettings) if f.name == name)
    if typing.get_origin(hint) is tuple:
        hint, default = list[str] | None, None
    elif typing.get_origin(hint) is typing.Literal:  # serve_command says what to give
        hint, metavar = str, metavar or "|".join(typing.get_args(hint))
    info: Any = (
        typer.Argument(help=help, metavar=flag)
        if not flag.startswith("--")
        else typer.Option(flag, help=help, metavar=metavar)
    )
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[hint, info]
    )


def serve_cli(**given: Any) -> None:
    """Serve the tools of TARGET as an MCP server."""
    values: dict[str, Any] = {k: tuple(v or ()) if k in _REPEATED else v for k, v in given.items()}
    settings = ServeSettings(**values)
    try:
        serve_command(settings)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


_PARAMETERS = [
    _parameter(knob.name, knob.flag, knob.help, knob.metavar, hint)
    for knob, hint in knobs()
    if knob.flag is not None
]
#: Fields given as a repeated option (a list, or ``None`` when not given) and kept as tuples.
_REPEATED = frozenset(knob.name for knob, hint in knobs() if typing.get_origin(hint) is tuple)
serve_cli.__signature__ = inspect.Signature(_PARAMETERS)  # type: ignore[attr-defined]
serve_cli.__annotations__ = {p.name: p.annotation for p in _PARAMETERS} | {"return": None}

#: A typer app with the single ``serve`` command, for mounting in the ``toolkit`` CLI.
app = typer.Typer(add_completion=False, no_args_is_help=True)
app.command("serve")(serve_cli)
