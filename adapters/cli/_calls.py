"""``toolkit calls``: recent calls from a durable call log, as a table or JSON."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from datetime import datetime
from typing import Annotated

import typer
from rich.table import Table

from adapters.cli._render import console, count, err_console
from toolkit.records.call_log import CALL_LOG_ENV, LoggedCall, display_target, read_calls

__all__ = ["calls_command", "parse_time"]

_AGO = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_time(text: str, *, now: float | None = None) -> float:
    """A POSIX time from ``"15m"``/``"2h"``/``"1d"`` (that long ago) or an ISO 8601 time.

    Raises:
        ValueError: ``text`` is neither.
    """
    match = _AGO.match(text.strip())
    if match:
        return (now if now is not None else time.time()) - float(match[1]) * _UNITS[match[2]]
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise ValueError(
            f"Cannot read the time {text!r}: write a duration ago (30s, 15m, 2h, 1d) or an ISO "
            "time (2026-11-23T21:00:00)."
        ) from None


_ARGUMENTS_WIDTH = 40


def _table(calls: list[LoggedCall], title: str) -> Table:
    """The calls, newest first. The arguments are what a reader looks for, so the other
    columns give way: what every row shares (the day, the caller, the host) goes to the title."""
    days = {_day(call) for call in calls}
    shared = {
        column: values.pop()
        for column, values in (
            ("caller", {call.caller for call in calls}),
            ("host", {call.host for call in calls}),
        )
        if len(values) == 1
    }
    said = [f"on {days.pop()}"] if len(days) == 1 else []
    said += [f"{column} {value}" for column, value in shared.items() if value]
    table = Table(title=" · ".join([title, *said]), expand=False)
    table.add_column("started", no_wrap=True)
    table.add_column("tool", style="bold cyan", no_wrap=True)
    table.add_column("outcome", no_wrap=True)
    table.add_column("ms", justify="right")
    table.add_column("try", justify="right")
    table.add_column("decision")
    columns = [c for c in ("caller", "host") if c not in shared]
    for column in columns:
        table.add_column(column)
    table.add_column("arguments", overflow="fold", min_width=_ARGUMENTS_WIDTH)
    started = "%H:%M:%S" if said and said[0].startswith("on ") else "%Y-%m-%d %H:%M:%S"
    for call in calls:
        color = "green" if call.outcome == "ok" else "red"
        outcome = call.outcome if call.code is None else f"{call.outcome} {call.code}"
        if call.answered_by is not None:
            outcome += f" by {call.answered_by}"
        if call.full_size is not None:
            outcome += f" cut of {call.full_size:,}"
        table.add_row(
            datetime.fromtimestamp(call.started_at).strftime(started),
            call.tool,
            f"[{color}]{outcome}[/]",
            f"{call.duration_ms:.1f}",
            str(call.attempts),
            call.decision,
            *[getattr(call, column) for column in columns],
            json.dumps(call.arguments, default=str)[:200],
        )
    return table


def _day(call: LoggedCall) -> str:
    return datetime.fromtimestamp(call.started_at).strftime("%Y-%m-%d")


def calls_command(
    log: Annotated[
        str | None,
        typer.Option(
            "--log",
            help=f"Call log file, sqlite:/// or postgresql:// URL (default: ${CALL_LOG_ENV}, "
            "calls.db).",
        ),
    ] = None,
    tool: Annotated[str | None, typer.Option(help="Only this tool.")] = None,
    code: Annotated[
        str | None, typer.Option(help="Only this error code (TIMEOUT, DENIED…; ok: successes).")
    ] = None,
    errors: Annotated[bool, typer.Option("--errors", help="Only failed calls.")] = False,
    caller: Annotated[
        str | None, typer.Option(help="Only calls from this caller (the authenticated one).")
    ] = None,
    host: Annotated[str | None, typer.Option(help="Only calls run on this host.")] = None,
    since: Annotated[
        str | None, typer.Option(help="Only calls since: 15m, 2h, 1d or an ISO time.")
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Only calls before: 15m, 2h, 1d or an ISO time.")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many calls, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print the calls as JSON.")] = False,
) -> None:
    """List recent tool calls from a call log, newest first."""
    target = log or os.environ.get(CALL_LOG_ENV) or "calls.db"
    try:
        calls = read_calls(
            target,
            tool=tool,
            code=code,
            outcome="error" if errors else None,
            caller=caller,
            host=host,
            since=parse_time(since) if since else None,
            until=parse_time(until) if until else None,
            limit=limit,
        )
    except (ValueError, OSError, sqlite3.Error) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps([c.to_dict() for c in calls], indent=2, default=str))
        return
    console.print(_table(calls, f"{count(len(calls), 'call')} in {display_target(target)}"))
