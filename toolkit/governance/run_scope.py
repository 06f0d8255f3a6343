"""``registry.run(budget=...)``: a run scope for code that calls tools itself."""

from __future__ import annotations

from typing import Any

from toolkit.governance.budget import Run, RunBudget

__all__ = ["RunScopes"]


class RunScopes:
    """Gives a registry its :meth:`run` method."""

    def run(self, budget: RunBudget | None = None, **limits: Any) -> Run:
        """A run: inside ``with registry.run(...)`` (or ``async with``) every call, from every
        entry point and nested ones included, counts against ``budget``.

        Args:
            budget: The limits (see :class:`~toolkit.RunBudget`).
            **limits: Instead of ``budget``: its fields (``registry.run(calls=20, repeats=3)``).

        Example:
            >>> from toolkit import ToolRegistry
            >>> registry = ToolRegistry()
            >>> with registry.run(calls=2) as run:
            ...     pass
            >>> run.calls
            0
        """
        return Run(budget if budget is not None else RunBudget(**limits))
