"""Rich renderings shared by the CLI commands."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from toolkit import ToolResult, ToolSpec
from toolkit.schema import describe_type

#: The width of output that is not a terminal (a pipe, a log file) when ``$COLUMNS`` is not set:
#: wider than rich's 80 so sentences stay whole, narrow enough to read in a log viewer.
PIPE_WIDTH = 100


def _width(stream: object) -> int | None:
    """Terminals keep their width; a pipe gets ``$COLUMNS`` or :data:`PIPE_WIDTH` columns."""
    if getattr(stream, "isatty", lambda: False)():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() else PIPE_WIDTH


console = Console(width=_width(sys.stdout))
err_console = Console(stderr=True, width=_width(sys.stderr))


def count(n: int, noun: str) -> str:
    """``1 tool``, ``2 tools``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _origin(spec: ToolSpec) -> str:
    """Where a tool comes from, short: its module, or its ``mcp://server/tool`` address."""
    if "://" in spec.source:
        return spec.source
    return spec.source.split(" (")[0].split(":")[0]  # "module:qualname (file:line)" -> module


def spec_table(specs: Iterable[ToolSpec], title: str = "Tools", *, sources: bool = False) -> Table:
    """A table of tools with their parameters, types and descriptions.

    Args:
        specs: The tools to show.
        title: The table's title.
        sources: Also say where each tool comes from (its module or MCP server address).
    """
    specs = list(specs)
    table = Table(title=title, show_lines=True, expand=False)
    # Names are never cut off nor folded: the other columns give way.
    longest = max((len(spec.name) for spec in specs), default=4)
    table.add_column("tool", style="bold cyan", overflow="fold", min_width=longest)
    table.add_column("description", ratio=2)
    table.add_column("parameters", ratio=3)
    for spec in specs:
        required = set(spec.required)
        params = Text()
        for name, schema in spec.parameters.items():
            if params:
                params.append("\n")
            params.append(name, style="bold" if name in required else "")
            params.append(f": {describe_type(schema)}", style="green")
            if name not in required:
                params.append(f" ({_optional(schema)})", style="cyan")
            desc = schema.get("description") if isinstance(schema, dict) else None
            if desc:
                params.append(f" — {desc}", style="dim")
            elif isinstance(schema, dict):
                params.append(" — (undocumented)", style="yellow")
        flags = [
            label
            for label, on in (
                ("read-only", spec.annotations.read_only),
                ("destructive", spec.annotations.destructive),
                ("idempotent", spec.annotations.idempotent),
            )
            if on
        ]
        heading = Text(spec.name)
        if flags:
            heading.append("\n" + ", ".join(flags), style="magenta")
        if sources and spec.source:
            heading.append("\n" + _origin(spec), style="dim")
        summary = spec.description.split("\n\n")[0] or "(no description)"
        table.add_row(heading, summary, params or Text("none", style="dim"))
    return table


def _optional(schema: Any) -> str:
    """``optional``, with the default the tool uses when the model leaves it out."""
    if isinstance(schema, dict) and "default" in schema:
        return f"optional, default {json.dumps(schema['default'], ensure_ascii=False)}"
    return "optional"


def result_panel(result: ToolResult) -> Panel:
    """A result as the model reads it: JSON highlighted on success, the message in red on
    failure. ``toolkit call`` and ``toolkit demo`` show results through here alike."""
    if result.is_error:
        code = result.code.value if result.code else "ERROR"
        return Panel(Text(result.content), title=f"[red]{result.tool} ✗ {code}", border_style="red")
    body = result.content
    try:
        shown = json.dumps(json.loads(body), indent=2, ensure_ascii=False)
        renderable: Syntax | Text = Syntax(shown, "json", word_wrap=True)
    except (ValueError, TypeError):
        renderable = Text(str(body))
    ms = f" · {result.record.duration_ms:.1f} ms" if result.record else ""
    return Panel(Group(renderable), title=f"[green]{result.tool} ✓{ms}", border_style="green")
