"""The notebook views render as intended where stylesheets do not reach.

JupyterLab's table CSS outranks a ``<style>`` block (cells come out right-aligned) and an
untrusted notebook drops ``<style>`` altogether, so every view carries its essential styling
inline. No browser is available offline here, so this checks the DOM: every cell, caption,
list and preformatted block of every view is left-aligned by its own ``style`` attribute.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from adapters.demo import carriers_server_config
from adapters.demo.warehouse_app import build_registry
from adapters.langgraph import RunSummary, build_agent
from adapters.mcp_client import McpClientPool
from adapters.testing import ScriptedChatModel
from toolkit import ToolRegistry

ALIGNED = {"td", "th", "caption", "ul", "pre", "p"}


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


def _elements(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.found


def _styles(style: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in style.split(";") if ":" in part)
    return {k.strip(): v.strip() for k, v in pairs}


def _views() -> dict[str, str]:
    registry = build_registry()
    single = ToolRegistry()
    single.register(registry.get("get_bin"))
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "get_bin", "args": {"code": "A-01-01"}}]}, "Found it."]
    )
    state = build_agent(model, registry).invoke({"messages": [("user", "bin A-01-01?")]})
    return {
        "client pool": McpClientPool({"carriers": carriers_server_config()})._repr_html_(),
        "agent run": RunSummary.from_state(state)._repr_html_(),
        "registry": registry._repr_html_(),
        "one-tool registry": single._repr_html_(),
        "tool": registry.get("query_bins")._repr_html_(),  # type: ignore[attr-defined]
        "result": registry.call_sync("get_bin", {"code": "A-01-01"})._repr_html_(),
        "failed result": registry.call_sync("get_bin", {"code": "Z-9"})._repr_html_(),
    }


@pytest.mark.parametrize("name", list(_views()))
def test_every_view_is_left_aligned_inline_without_a_stylesheet(name: str) -> None:
    html = _views()[name]
    elements = _elements(html)
    assert "<style" not in html, "untrusted notebooks drop <style>"
    checked = [(tag, attrs) for tag, attrs in elements if tag in ALIGNED]
    assert checked, f"the {name} view has cells or blocks to check"
    for tag, attrs in checked:
        assert _styles(attrs.get("style", "")).get("text-align") == "left", (tag, attrs)
    for tag, attrs in elements:
        if tag == "table":
            assert _styles(attrs["style"])["border-collapse"] == "collapse"


def test_the_registry_table_counts_in_words() -> None:
    views = _views()
    assert "9 tools</caption>" in views["registry"]
    assert "1 tool</caption>" in views["one-tool registry"]
    headers = [t for t, _ in _elements(views["registry"]) if t == "th"]
    assert len(headers) == 4
