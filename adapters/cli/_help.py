"""``--help`` without a ``<bool>`` after flags.

typer's rich help prints each option's type, and for an on/off flag that reads ``--yes <bool>``,
as if the flag took a value. The type column of a flag is left empty instead; options that
take a value keep theirs (``--port <int>``).
"""

from __future__ import annotations

from typer.core import TyperOption

from adapters.cli._typer_private import Context

__all__ = ["flags_take_no_value"]

_shown_type = TyperOption.display_type_rich


def _type_of_a_value(self: TyperOption, ctx: Context) -> str | None:
    if self.is_flag and not self.count:
        return None
    return _shown_type(self, ctx)


def flags_take_no_value() -> None:
    """Make ``--help`` show no type after on/off flags (idempotent)."""
    TyperOption.display_type_rich = _type_of_a_value  # type: ignore[method-assign]
