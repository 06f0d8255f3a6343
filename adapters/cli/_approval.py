"""Asking the person at the terminal: before a call that needs approval, and for a server.

``toolkit call`` and ``toolkit mcp call`` ask alike: a question on a terminal, ``--yes`` to
approve without one, and without either a refusal that says how to approve. A remote call asks
the person once: when they approved the call here, the server's own yes/no approval question
(an MCP elicitation with one boolean field) is answered yes for them; ``--yes`` answers every
question a server asks. The end of input (Ctrl-D) at a prompt is a refusal, never an error.
Time spent waiting for the person is counted in :attr:`TerminalApprover.person_seconds` so the
call's duration can leave it out.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
import click

from adapters.cli._render import err_console
from toolkit import Approval, CallRequest
from toolkit.calls.interaction import Elicitation

__all__ = ["TerminalApprover"]


class TerminalApprover:
    """An approver that asks at the terminal, or approves everything with ``--yes``.

    Attributes:
        yes: Approve without asking, and answer every server question.
        refused: Why the call was not run, written for the person at the terminal (or None).
        approved: Whether the person (or ``--yes``) approved the call.
        person_seconds: Time spent waiting for the person's answers to servers' questions.
    """

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.refused: str | None = None
        self.approved = False
        self.person_seconds = 0.0

    def __call__(self, request: CallRequest) -> Approval:
        """Approve ``request`` with ``--yes``, ask on a terminal, refuse otherwise."""
        if self.yes:
            self.approved = True
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
        try:
            run = Confirm.ask(
                f"{request.tool} is {what}. Run it with {shown}?", console=err_console
            )
        except (EOFError, KeyboardInterrupt):
            err_console.print()
            self.refused = (
                f"{request.tool} was not run: no answer came (the input ended). "
                "Add --yes to approve it without a question."
            )
            return Approval(approved=False, reason="no answer came")
        if run:
            self.approved = True
            return Approval(approved=True)
        self.refused = f"{request.tool} was not run: you declined. Add --yes to skip the question."
        return Approval(approved=False, reason="the user declined")

    @property
    def answers_servers(self) -> bool:
        """Whether servers may ask questions here (a terminal, or ``--yes`` to answer them)."""
        return self.yes or sys.stdin.isatty()

    async def answer_server(
        self, server: str, message: str, schema: Mapping[str, Any]
    ) -> Elicitation:
        """Answer a server's ``elicitation/create`` (the pool's elicitation handler)."""
        started = time.perf_counter()
        try:
            return await anyio.to_thread.run_sync(self._answer, server, message, schema)
        finally:
            self.person_seconds += time.perf_counter() - started

    def _answer(self, server: str, message: str, schema: Mapping[str, Any]) -> Elicitation:
        fields: dict[str, Any] = dict(schema.get("properties") or {})
        asked = f"[bold]{server} asks:[/bold] {message}"
        if self.yes:
            return _answered_by_yes(asked, fields, list(schema.get("required") or []))
        yes_no = len(fields) == 1 and next(iter(fields.values())).get("type") == "boolean"
        if yes_no and self.approved:
            err_console.print(f"{asked} [green]yes[/] (you approved this call)", soft_wrap=True)
            return Elicitation("accept", {next(iter(fields)): True})
        err_console.print(asked, soft_wrap=True)
        try:
            return Elicitation("accept", _prompted(fields))
        except click.exceptions.Abort:  # Ctrl-D or Ctrl-C at a prompt
            err_console.print("\nno answer: the question was dismissed")
            return Elicitation("cancel")


def _answered_by_yes(asked: str, fields: dict[str, Any], required: list[str]) -> Elicitation:
    """``--yes``'s answer: yes to every yes/no field, the default of every other one."""
    answers = {
        name: True if prop.get("type") == "boolean" else prop["default"]
        for name, prop in fields.items()
        if prop.get("type") == "boolean" or "default" in prop
    }
    missing = [name for name in required if name not in answers]
    if missing:
        err_console.print(
            f"{asked} [red]declined[/]: --yes cannot answer {', '.join(missing)}; "
            "run the command at a terminal to answer it",
            soft_wrap=True,
        )
        return Elicitation("decline")
    err_console.print(f"{asked} [green]yes[/] (--yes)", soft_wrap=True)
    return Elicitation("accept", answers)


def _prompted(fields: dict[str, Any]) -> dict[str, Any]:
    """Each field's answer, asked at the terminal (typed as the schema says)."""
    answers: dict[str, Any] = {}
    for name, prop in fields.items():
        label = prop.get("title") or prop.get("description") or name
        kind = prop.get("type", "string")
        if kind == "boolean":
            answers[name] = click.confirm(label, default=bool(prop.get("default", False)), err=True)
            continue
        typed: Any = {"integer": int, "number": float}.get(kind, str)
        answers[name] = click.prompt(label, default=prop.get("default"), type=typed, err=True)
    return answers
