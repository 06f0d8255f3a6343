"""HTML reprs for notebooks: a registry as a table, a spec, a result."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from toolkit.views._describe import describe_type

if TYPE_CHECKING:
    from toolkit.calls.spec import ToolSpec
    from toolkit.result import ToolResult
    from toolkit.tool import Tool

# Inline styles, not a <style> block: JupyterLab's own table CSS outranks a stylesheet (its
# cells come out right-aligned) and an untrusted notebook drops <style> altogether. Colours are
# translucent greys so the views read on light and dark themes alike.
_TABLE = "border-collapse:collapse;font-size:13px;margin:4px 0"
_CELL = "border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top"
_HEAD = f"{_CELL};background:rgba(127,127,127,0.12);font-weight:bold"
_CAPTION = "text-align:left;caption-side:top;padding:2px 0;font-weight:bold"
_LIST = "margin:0;padding-left:1em;text-align:left"
_PRE = "text-align:left;margin:4px 0;white-space:pre-wrap"
_BADGE = (
    "font-size:11px;border-radius:3px;padding:0 4px;margin-left:4px;"
    "background:rgba(127,127,127,0.18);white-space:nowrap"
)
_ERROR = "color:#b00;text-align:left"
_BLOCK = "text-align:left"


# With column widths the table fills the output area in fixed proportions, and long words (a
# module path, a URL) wrap inside their own column instead of widening it.
_FIXED = "width:100%;table-layout:fixed"
_WRAP = "overflow-wrap:anywhere"

#: Shares of the width for tables of tools: the description and the parameters get most.
TOOL_COLUMNS = ("18%", "32%", "38%", "12%")


def _td(content: str, extra: str = "") -> str:
    return f"<td style='{_CELL}{extra}'>{content}</td>"


def _th(label: str, extra: str = "") -> str:
    return f"<th style='{_HEAD}{extra}'>{escape(label)}</th>"


def table_html(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    caption: str = "",
    widths: Sequence[str] = (),
) -> str:
    """A left-aligned table with inline styles; ``rows`` hold HTML that is already escaped.

    ``widths`` (CSS widths, one per column) fix each column's share of the output's width.
    """
    extra = f";{_WRAP}" if widths else ""
    head = "".join(_th(h, extra) for h in headers)
    body = "".join("<tr>" + "".join(_td(c, extra) for c in row) + "</tr>" for row in rows)
    cap = f"<caption style='{_CAPTION}'>{escape(caption)}</caption>" if caption else ""
    cols = "".join(f"<col style='width:{escape(w)}'>" for w in widths)
    group = f"<colgroup>{cols}</colgroup>" if widths else ""
    style = f"{_TABLE};{_FIXED}" if widths else _TABLE
    return f"<table class='tk-t' style='{style}'>{cap}{group}<tr>{head}</tr>{body}</table>"


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
    return f"<ul class='tk-p' style='{_LIST}'>{''.join(items)}</ul>" if items else "<i>none</i>"


def _badges(spec: ToolSpec) -> str:
    a = spec.annotations
    flags = [
        ("read-only", a.read_only),
        ("destructive", a.destructive),
        ("idempotent", a.idempotent),
    ]
    out = "".join(f"<span class='tk-b' style='{_BADGE}'>{n}</span>" for n, on in flags if on)
    out += "".join(
        f"<span class='tk-b' style='{_BADGE}'>#{escape(t)}</span>" for t in sorted(spec.tags)
    )
    return out


def _row(tool: Tool) -> tuple[str, str, str, str]:
    try:
        s = tool.spec
        return (
            f"<b>{escape(s.name)}</b>{_badges(s)}",
            escape(s.description.split("\n\n")[0]),
            _params(s),
            f"<small>{escape(s.source.split(' (')[0])}</small>",
        )
    except Exception as exc:  # one broken tool must not hide the others
        problem = f"cannot be described: {type(exc).__name__}: {exc}"
        return (
            f"<b>{escape(_safe_name(tool))}</b>",
            f"<span class='tk-r' style='{_ERROR}'>{escape(problem)}</span>",
            "",
            "",
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
    rows = [_row(t) for t in tools]
    caption = f"{len(tools)} tool" if len(tools) == 1 else f"{len(tools)} tools"
    headers = ("tool", "description", "parameters", "source")
    return table_html(headers, rows, caption, TOOL_COLUMNS)


def error_html(what: str, exc: BaseException) -> str:
    """What a notebook shows for an object whose own HTML could not be built."""
    return (
        f"<div class='tk-r' style='{_ERROR}'><b>{escape(what)}</b>: cannot be shown "
        f"({escape(type(exc).__name__)}: {escape(str(exc))})</div>"
    )


def facts_html(facts: Sequence[tuple[str, str]]) -> str:
    """A two-column table of plain-text facts (label, value); empty for no facts."""
    if not facts:
        return ""
    rows = "".join(
        f"<tr><th style='{_HEAD}'>{escape(k)}</th>{_td(escape(v))}</tr>" for k, v in facts
    )
    return f"<table class='tk-f' style='{_TABLE}'>{rows}</table>"


def spec_html(spec: ToolSpec, facts: Sequence[tuple[str, str]] = ()) -> str:
    """One tool: its description, parameters and schema, and any plain-text ``facts``."""
    schema = escape(json.dumps(spec.input_schema, indent=2))
    return (
        f"<div style='{_BLOCK}'><b>{escape(spec.name)}</b>{_badges(spec)}"
        f"<p style='{_BLOCK}'>{escape(spec.description)}</p>{facts_html(facts)}{_params(spec)}"
        f"<details><summary>input schema</summary><pre style='{_PRE}'>{schema}</pre></details>"
        "</div>"
    )


def result_html(result: ToolResult) -> str:
    """A result: its content, or the error code and message in red."""
    body: Any = result.structured if result.structured is not None else result.content
    text = body if isinstance(body, str) else json.dumps(body, indent=2, default=str)
    if result.is_error:
        code = result.code.value if result.code else "ERROR"
        return (
            f"<div class='tk-r' style='{_ERROR}'><b>{escape(code)}</b>"
            f"<pre style='{_PRE}'>{escape(text)}</pre></div>"
        )
    return (
        f"<div style='{_BLOCK}'><b>{escape(result.tool)}</b> ✓"
        f"<pre style='{_PRE}'>{escape(text)}</pre>{_images(result)}</div>"
    )


#: Image types shown inline; anything else (SVG included) stays a content block only.
_SHOWN_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")


def _images(result: ToolResult) -> str:
    """The result's raster images as inline ``<img>`` elements (data URIs)."""
    out = []
    for block in result.blocks:
        if getattr(block, "type", "") != "image":
            continue
        mime, data = getattr(block, "mime_type", ""), getattr(block, "data", "")
        if mime in _SHOWN_IMAGES and _BASE64.match(data):
            out.append(
                f"<div style='{_BLOCK}'><img alt='image from {escape(result.tool)}' "
                f"src='data:{mime};base64,{data}' style='max-width:100%'></div>"
            )
    return "".join(out)
