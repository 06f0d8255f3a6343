"""Typer's private names the CLI relies on, imported in this one place.

``typer._click`` is typer's vendored click, not public API; when a typer release moves it,
only this module changes.
"""

from typer._click import Command, Context

__all__ = ["Command", "Context"]
