"""HTML reprs for notebooks: a registry as a table, a spec, a result."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from toolkit._describe import describe_type

if TYPE_CHECKING:
    from toolkit.result import ToolResult
    from toolkit.spec import ToolSpec
    from toolkit.tool import Tool

_STYLE = (
    "<style>.tk-t{border-collapse:collapse;font-size:13px}"
    ".tk-t td,.tk-t th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}"
    ".tk-t th{background:#f5f5f5}.tk-p{margin:0;padding-left:1em}.tk-r{color:#b00}"
    ".tk-b{font-size:11px;border-radius:3px;padding:0 4px;margin-left:4px;background:#eee}</style>"
)


def _params(spec: ToolSpec) -> str:
    required = set(spec.required)
    items = []
    for name, schema in spec.parameters.items():
        desc = schema.get("description", "") if isinstance(schema, dict) else ""
        mark = "" if name in required else " <i>(optional)</i>"
        items.append(
            f"<li><code>{escape(name)}</code>: {escape(describe_type(schema))}{mark}"
            + (f" — {escape(desc)}" if desc else "")
            + "</li>"
        )
    return f"<ul class='tk-p'>{''.join(items)}</ul>" if items else "<i>none</i>"


def _badges(spec: ToolSpec) -> str:
    a = spec.annotations
    flags = [
        ("read-only", a.read_only),
        ("destructive", a.destructive),
        ("idempotent", a.idempotent),
    ]
    out = "".join(f"<span class='tk-b'>{n}</span>" for n, on in flags if on)
    out += "".join(f"<span class='tk-b'>#{escape(t)}</span>" for t in sorted(spec.tags))
    return out


def _row(tool: Tool) -> str:
    try:
        s = tool.spec
        return (
            f"<tr><td><b>{escape(s.name)}</b>{_badges(s)}</td>"
            f"<td>{escape(s.description.split(chr(10) + chr(10))[0])}</td><td>{_params(s)}</td>"
            f"<td><small>{escape(s.source.split(' (')[0])}</small></td></tr>"
        )
    except Exception as exc:  # one broken tool must not hide the others
        return (
            f"<tr><td><b>{escape(_safe_name(tool))}</b></td><td class='tk-r' colspan='3'>"
            f"cannot be described: {escape(type(exc).__name__)}: {escape(str(exc))}</td></tr>"
        )


def _safe_name(tool: Any) -> str:
    try:
        return str(tool.name)
    except Exception:
        return "?"


def registry_html(tools: Sequence[Tool]) -> str:
    """A table of tools: name, description, parameters with types and descriptions.

    A tool whose spec cannot be built shows its error in its own row.
    """
    rows = "".join(_row(t) for t in tools)
    return (
        f"{_STYLE}<table class='tk-t'><caption>{len(tools)} tools</caption>"
        f"<tr><th>tool</th><th>description</th><th>parameters</th><th>source</th></tr>{rows}</table>"
    )


def error_html(what: str, exc: BaseException) -> str:
    """What a notebook shows for an object whose own HTML could not be built."""
    return (
        f"{_STYLE}<div class='tk-r'><b>{escape(what)}</b>: cannot be shown "
        f"({escape(type(exc).__name__)}: {escape(str(exc))})</div>"
    )


def spec_html(spec: ToolSpec) -> str:
    """One tool: its description, parameters and schema."""
    schema = escape(json.dumps(spec.input_schema, indent=2))
    return (
        f"{_STYLE}<div><b>{escape(spec.name)}</b>{_badges(spec)}<p>{escape(spec.description)}</p>"
        f"{_params(spec)}<details><summary>input schema</summary><pre>{schema}</pre></details></div>"
    )


def result_html(result: ToolResult) -> str:
    """A result: green content, or the error code and message in red."""
    body: Any = result.structured if result.structured is not None else result.content
    text = body if isinstance(body, str) else json.dumps(body, indent=2, default=str)
    if result.is_error:
        code = result.code.value if result.code else "ERROR"
        return f"{_STYLE}<div class='tk-r'><b>{escape(code)}</b><pre>{escape(text)}</pre></div>"
    return f"{_STYLE}<div><b>{escape(result.tool)}</b> ✓<pre>{escape(text)}</pre></div>"
