"""Shared steps of the provider schema forms: inlining local ``$ref`` and noting changes."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Changes", "ProviderSchemaWarning", "inline_refs", "warn_changes"]


class ProviderSchemaWarning(UserWarning):
    """A tool's schema was changed to fit a provider's schema subset (the message says how)."""


@dataclass
class Changes:
    """What a conversion changed in one tool's schema, in words, for the warning."""

    notes: list[str] = field(default_factory=list)

    def add(self, path: str, what: str) -> None:
        """Note that at ``path`` (``(root)``, ``'items'``…) ``what`` was changed."""
        note = f"{path}: {what}"
        if note not in self.notes:
            self.notes.append(note)


def inline_refs(
    schema: dict[str, Any], changes: Changes, *, recursive: dict[str, Any]
) -> dict[str, Any]:
    """``schema`` with every local ``$ref`` replaced by its target and no ``$defs``.

    A reference back into itself (a recursive model) is replaced by ``recursive`` (a loose
    schema), noted in ``changes``. An unresolvable reference is replaced the same way.
    """
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    root = {k: v for k, v in schema.items() if k not in ("$defs", "definitions", "$schema")}
    return _inline(copy.deepcopy(root), defs, "(root)", (), changes, recursive)  # type: ignore[no-any-return]


def _inline(
    node: Any,
    defs: dict[str, Any],
    path: str,
    seen: tuple[str, ...],
    changes: Changes,
    loose: dict[str, Any],
) -> Any:
    if isinstance(node, list):
        return [_inline(n, defs, path, seen, changes, loose) for n in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        name = ref.rsplit("/", 1)[-1]
        if ref in seen:
            changes.add(path, f"the recursive reference {ref} became {loose}")
            return {**copy.deepcopy(loose), **_described(siblings)}
        if not ref.startswith("#/") or name not in defs:
            changes.add(path, f"the unresolvable reference {ref} became {loose}")
            return {**copy.deepcopy(loose), **_described(siblings)}
        target = copy.deepcopy(defs[name])
        merged = {**target, **siblings}  # sibling keys (description…) win over the target's
        return _inline(merged, defs, path, (*seen, ref), changes, loose)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {
                name: _inline(
                    sub, defs, f"{path}.{name}" if path != "(root)" else name, seen, changes, loose
                )
                for name, sub in value.items()
            }
        elif key in ("default", "enum", "const", "examples", "example"):
            out[key] = value  # values, not schemas
        else:
            at = f"{path}[]" if key == "items" else path
            out[key] = _inline(value, defs, at, seen, changes, loose)
    return out


def _described(siblings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in siblings.items() if k in ("description", "title")}


def warn_changes(provider: str, tool: str, changes: Iterable[str], *, stacklevel: int = 3) -> None:
    """One :class:`ProviderSchemaWarning` naming every change made to ``tool``'s schema."""
    notes = list(changes)
    if notes:
        warnings.warn(
            f"Tool {tool!r} is sent to {provider} with a changed schema, to fit the schema "
            f"subset it accepts: {'; '.join(notes)}. Simplify the parameter types to send it "
            "unchanged.",
            ProviderSchemaWarning,
            stacklevel=stacklevel,
        )
