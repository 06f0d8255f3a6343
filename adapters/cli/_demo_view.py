"""How the demo looks: the tools, each model turn, each result, the approval, the call log."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from adapters.cli._render import result_panel, spec_table
from adapters.langgraph import RunSummary
from toolkit import CallRecord, ErrorCode, ToolError, ToolRegistry, ToolResult

__all__ = [
    "NEXT_STEPS",
    "answer_panel",
    "approval_panel",
    "call_log",
    "call_text",
    "footer",
    "intro",
    "request_panel",
    "tool_result_panel",
    "tools_table",
    "turn_panel",
]


#: Where a newcomer goes from here.
NEXT_STEPS = Text(
    "next: toolkit demo --yes · OPENAI_API_KEY=… toolkit demo · toolkit demo --help · notebooks/",
    style="dim",
)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def call_text(tool: str, arguments: Any) -> str:
    """A call as a person reads it: ``get_bin(code="A-1-1")``."""
    if not isinstance(arguments, Mapping):
        return f"{tool}({arguments!r})"
    shown = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in arguments.items())
    return f"{tool}({shown})"


def intro(model_line: str) -> Panel:
    """The opening panel: what the demo shows, and which model answers."""
    body = Text.assemble(
        ("An agent gets one request and works through it with ", ""),
        ("local", "bold"),
        (" functions and ", ""),
        ("remote", "bold"),
        (
            " MCP tools from one registry. Watch a failing call come back as a message the "
            "model fixes, a destructive call wait for approval, and the call log at the end.\n",
            "",
        ),
        (model_line, "dim"),
    )
    return Panel(body, title="[bold]mcp-toolkit demo", border_style="cyan")


def tools_table(registry: ToolRegistry) -> Table:
    """The registry's tools with their schemas and where each one comes from."""
    specs = registry.specs()
    remote = sum("://" in s.source for s in specs)
    title = f"{len(specs)} tools in one registry: {len(specs) - remote} local functions"
    if remote:
        title += f", {remote} from an MCP server"
    return spec_table(specs, title=title, sources=True)


def request_panel(request: str) -> Panel:
    """The user's request."""
    return Panel(Text(request), title="[bold]user", title_align="left", border_style="white")


def turn_panel(message: AIMessage, turn: int) -> Panel:
    """One model turn: its text, and the tool calls it asks for."""
    parts: list[RenderableType] = []
    if message.text:
        parts.append(Text(message.text))
    for call in message.tool_calls:
        parts.append(Text.assemble(("→ ", "bold blue"), call_text(call["name"], call["args"])))
    for bad in message.invalid_tool_calls:
        parts.append(Text(f"→ {bad.get('name')}({bad.get('args')}) (unparsable)", style="red"))
    title = f"[bold blue]model · turn {turn}" if message.tool_calls else "[bold blue]model"
    return Panel(Group(*parts), title=title, title_align="left", border_style="blue")


def tool_result_panel(message: ToolMessage, record: CallRecord | None) -> Panel:
    """A tool's answer as the model read it, with the call's timing."""
    failed = message.status == "error"
    error = None
    if failed:
        info = message.artifact.get("error", {}) if isinstance(message.artifact, dict) else {}
        code = info.get("code") or ErrorCode.EXECUTION_ERROR
        error = ToolError(info.get("message") or message.text, code=code)
    result = ToolResult(  # the text the model read, not the structured copy it never sees
        content=message.text,
        is_error=failed,
        error=error,
        tool=message.name or "",
        call_id=message.tool_call_id,
        record=record,
    )
    return result_panel(result)


def approval_panel(call: str, description: str) -> Panel:
    """A call (as :func:`call_text` shows it) that the policy holds until a person decides."""
    body = Text.assemble(
        (call, "bold"),
        (f"\n{description.splitlines()[0] if description else ''}\n", "dim"),
        ("The tool is marked destructive, so the policy asks a person first.", ""),
    )
    return Panel(
        body, title="[bold yellow]approval needed", title_align="left", border_style="yellow"
    )


def answer_panel(answer: str) -> Panel:
    """The model's final answer."""
    return Panel(
        Text(answer or "(no answer)"),
        title="[bold green]answer",
        title_align="left",
        border_style="green",
    )


def call_log(summary: RunSummary, records: Mapping[str, CallRecord]) -> Table:
    """Every tool call of the run with its outcome, decision, attempts and time."""
    failed = len(summary.errors)
    spent = sum(c["duration_ms"] for c in summary.tool_calls)
    calls, turns = len(summary.tool_calls), summary.iterations
    table = Table(
        title=f"call log: {_count(calls, 'call')} in {_count(turns, 'turn')}, {failed} failed, "
        f"{spent:.0f} ms in tools",
        expand=False,
    )
    table.add_column("turn", justify="right")
    table.add_column("tool", no_wrap=True)
    table.add_column("arguments", overflow="fold", min_width=16, ratio=1)
    table.add_column("outcome", no_wrap=True)
    table.add_column("decision")
    table.add_column("tries", justify="right", no_wrap=True)
    table.add_column("ms", justify="right", no_wrap=True)
    for entry in summary.tool_calls:
        record = records.get(entry["call_id"])
        outcome = Text(entry["code"] or "ok", style="red" if entry["is_error"] else "green")
        table.add_row(
            str(entry["iteration"]),
            entry["tool"],
            call_text("", entry["arguments"])[1:-1],
            outcome,
            entry["decision"],
            str(record.attempts) if record else "",
            f"{entry['duration_ms']:.1f}",
        )
    return table


def footer(usage: Mapping[str, int], seconds: float) -> Text:
    """The run's wall time and token usage (or a note that the model reported none)."""
    if usage.get("total_tokens"):
        tokens = (
            f"tokens: {usage.get('input_tokens', 0)} in, {usage.get('output_tokens', 0)} out, "
            f"{usage['total_tokens']} total"
        )
    else:
        tokens = "tokens: none reported (a scripted model reads none)"
    took = f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"
    return Text(f"agent run: {took} · {tokens}", style="dim")
