"""Asking the person at the terminal before a call that needs approval.

``toolkit call`` and ``toolkit mcp call`` ask alike: a question on a terminal, ``--yes`` to
approve without one, and without either a refusal that says how to approve.
"""

from __future__ import annotations

import json
import sys

from adapters.cli._render import err_console
from toolkit import Approval, CallRequest

__all__ = ["TerminalApprover"]


class TerminalApprover:
    """An approver that asks at the terminal, or approves everything with ``--yes``.

    Attributes:
        yes: Approve without asking.
        refused: Why the call was not run, written for the person at the terminal (or None).
    """

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.refused: str | None = None

    def __call__(self, request: CallRequest) -> Approval:
        """Approve ``request`` with ``--yes``, ask on a terminal, refuse otherwise."""
        if self.yes:
            return Approval(approved=True)
        what = "destructive" if request.spec.annotations.destructive else "marked for approval"
        if not sys.stdin.isatty():
            self.refused = (
                f"{request.tool} is {what}, so it runs only when you approve it. Nothing was "
                "run. Add --yes to the command to approve it (there is no terminal to ask in)."
            )
            return Approval(approved=False, reason="no one could approve it")
        from rich.prompt import Confirm

        shown = json.dumps(request.arguments, default=str)
        if Confirm.ask(f"{request.tool} is {what}. Run it with {shown}?", console=err_console):
            return Approval(approved=True)
        self.refused = f"{request.tool} was not run: you declined. Add --yes to skip the question."
        return Approval(approved=False, reason="the user declined")
