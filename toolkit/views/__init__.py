"""Building blocks for notebook views (``_repr_html_``) that render as intended anywhere.

Every element carries its essential styling inline: JupyterLab's table CSS outranks a
``<style>`` block (its cells come out right-aligned) and an untrusted notebook drops ``<style>``
altogether. Adapters and user code build their views from these helpers so that all views look
alike and none of them raises::

    from toolkit.views import html_safe, html_table

    class Inventory:
        def _repr_html_(self) -> str:
            return html_safe("inventory", lambda: html_table(["item", "count"], [["bolt", "12"]]))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from toolkit.calls.spec import ToolSpec
from toolkit.views._html import _BLOCK, _ERROR, _PRE, error_html, facts_html, spec_html, table_html

__all__ = [
    "html_error",
    "html_facts",
    "html_progress",
    "html_safe",
    "html_table",
    "html_text",
    "html_tool",
]


def html_table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    caption: str = "",
    *,
    widths: Sequence[str] = (),
) -> str:
    """A left-aligned table with inline styles.

    Args:
        headers: Column titles (plain text, escaped here).
        rows: Cells as HTML that is already escaped (use :func:`html.escape` on plain text).
        caption: A plain-text caption above the table (none when empty).
        widths: CSS widths, one per column (``"30%"``): the table then fills the output's
            width in these shares and long words wrap inside their column. Empty: each
            column as wide as its content.

    Returns:
        The ``<table>`` element.
    """
    return table_html(headers, rows, caption, widths)


def html_tool(spec: ToolSpec, facts: Sequence[tuple[str, str]] = ()) -> str:
    """One tool: name, badges, description, extra facts, parameters and input schema.

    Args:
        spec: The tool's spec.
        facts: Plain-text ``(label, value)`` pairs shown in a small table (a server, a URL).

    Returns:
        A ``<div>`` holding the view.
    """
    return spec_html(spec, facts)


def html_facts(facts: Sequence[tuple[str, str]]) -> str:
    """A two-column table of plain-text ``(label, value)`` pairs (empty for none)."""
    return facts_html(facts)


def html_text(text: str, *, preformatted: bool = False, error: bool = False) -> str:
    """Plain text as a left-aligned block.

    Args:
        text: The text (escaped here).
        preformatted: Keep line breaks and spacing (``<pre>``).
        error: Show it in red, as a problem.

    Returns:
        A ``<div>`` or ``<pre>`` element.
    """
    style = _ERROR if error else _BLOCK
    if preformatted:
        return f"<pre style='{_PRE}{';color:#b00' if error else ''}'>{escape(text)}</pre>"
    return f"<div style='{style}'>{escape(text)}</div>"


def html_progress(progress: float, total: float | None = None, message: str | None = None) -> str:
    """A progress bar for a call's progress updates (the arguments of a progress callback).

    Without a ``total`` the bar cannot be filled, so it shows the count alone.

    Args:
        progress: Work done so far.
        total: Work in all, when known.
        message: What the tool says it is doing.

    Returns:
        A ``<div>`` with the bar and a left-aligned caption.
    """
    known = total is not None and total > 0
    share = min(max(progress / total, 0.0), 1.0) if known and total else 0.0
    label = f"{share:.0%}" if known else f"{progress:g}"
    text = f"{label} · {message}" if message else label
    track = (
        "text-align:left;width:240px;height:10px;border-radius:5px;background:rgba(127,127,127,0.2)"
    )
    fill = (
        f"text-align:left;width:{share * 100:.1f}%;height:100%;border-radius:5px;background:#3b82f6"
    )
    return (
        f"<div class='tk-g' style='{_BLOCK};margin:4px 0'>"
        f"<div style='{track}'><div style='{fill}'></div></div>"
        f"<div style='{_BLOCK};font-size:12px'>{escape(text)}</div></div>"
    )


def html_error(what: str, exc: BaseException) -> str:
    """What a notebook shows for ``what`` when its own view could not be built."""
    return error_html(what, exc)


def html_safe(what: str, build: Callable[[], str]) -> str:
    """``build()``, or :func:`html_error` if it raises: a view never raises.

    Args:
        what: What is being shown, for the error line.
        build: Returns the view's HTML.
    """
    try:
        return build()
    except Exception as exc:  # a notebook shows the problem instead of a traceback
        return error_html(what, exc)
