"""The notebook views render as intended where stylesheets do not reach.

JupyterLab's table CSS outranks a ``<style>`` block (cells come out right-aligned) and an
untrusted notebook drops ``<style>`` altogether, so every view carries its essential styling
inline. No browser is available offline here, so this checks the DOM: every cell, caption,
list and preformatted block of every view is left-aligned by its own ``style`` attribute, and
no view raises: a broken part shows its error.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from typing import Any

import pytest

from adapters.action_xml import parse_action
from adapters.demo import carriers_server_config, labels_server_config
from adapters.demo.warehouse_app import build_registry
from adapters.http import HttpToolset
from adapters.langgraph import RunSummary, build_agent
from adapters.mcp_client import McpClientPool
from adapters.testing import ScriptedChatModel
from toolkit import (
    ImageContent,
    JsonSchemaTool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    ToolSpec,
)
from toolkit.views import html_progress, html_safe, html_table, html_text

ALIGNED = {"td", "th", "caption", "ul", "pre", "p", "div"}


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


@pytest.fixture(scope="module")
def label_call() -> tuple[ToolResult, list[tuple[float, float | None, str | None]]]:
    """One call of the labels server's tool (served by this package over stdio), with progress."""
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    labels = ToolRegistry()
    with McpClientPool({"labels": labels_server_config(call_timeout=30)}) as pool:
        pool.register_into_sync(labels)
        result = labels.call_sync(
            "labels_shipping_label", {"tracking_id": "TRK-1002"}, ToolContext(progress=on_progress)
        )
    return result, seen


@pytest.fixture(scope="module")
def views(
    label_call: tuple[ToolResult, list[tuple[float, float | None, str | None]]],
) -> dict[str, str]:
    """Every view, the MCP ones from a live pool talking to the carriers server over stdio."""
    registry = build_registry()
    single = ToolRegistry()
    single.register(registry.get("get_bin"))
    model = ScriptedChatModel(
        turns=[{"tool_calls": [{"name": "get_bin", "args": {"code": "A-01-01"}}]}, "Found it."]
    )
    state = build_agent(model, registry).invoke({"messages": [("user", "bin A-01-01?")]})
    servers = {
        "carriers": carriers_server_config(),
        "broken": {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]},
    }
    idle_pool = McpClientPool(servers)._repr_html_()
    remote = ToolRegistry()
    with McpClientPool(servers) as pool:
        pool.register_into_sync(remote, ["carriers"])
        with pytest.raises(ToolError):
            pool.register_into_sync(ToolRegistry(), ["broken"])
        pool_html = pool._repr_html_()
        remote_tool = remote.get(remote.names()[0])._repr_html_()  # type: ignore[attr-defined]
    toolset = HttpToolset.from_config(
        {
            "track": {
                "endpoint": "https://api.test/parcels/{code}",
                "description": "Where a parcel is.",
                "parameters": [
                    {
                        "name": "code",
                        "position": "path",
                        "required": True,
                        "description": "tracking code",
                    },
                    {"name": "tenant", "value_from": "context.tenant"},
                ],
            },
            "cancel": {
                "endpoint": "https://api.test/parcels/{code}",
                "method": "delete",
                "parameters": [{"name": "code", "position": "path", "required": True}],
            },
        }
    )
    specs = registry.specs()
    return {
        "client pool (idle)": idle_pool,
        "client pool (one ready, one failed)": pool_html,
        "remote tool": remote_tool,
        "http toolset": toolset._repr_html_(),
        "http tool": toolset.tools[0]._repr_html_(),
        "parsed action": parse_action(
            "Let me look.\n<ACTION><get_bin><code>A-01-01</code></get_bin></ACTION>", specs
        )._repr_html_(),
        "malformed action": parse_action("Here:\n<ACTION><get_bin>", specs)._repr_html_(),
        "final answer": parse_action("Bin A-01-01 holds bolts.", specs)._repr_html_(),
        "agent run": RunSummary.from_state(state)._repr_html_(),
        "registry": registry._repr_html_(),
        "one-tool registry": single._repr_html_(),
        "tool": registry.get("query_bins")._repr_html_(),  # type: ignore[attr-defined]
        "result": registry.call_sync("get_bin", {"code": "A-01-01"})._repr_html_(),
        "failed result": registry.call_sync("get_bin", {"code": "Z-9"})._repr_html_(),
        "image result": label_call[0]._repr_html_(),
        "progress bar": html_progress(*label_call[1][1]),
    }


VIEWS = [
    "client pool (idle)",
    "client pool (one ready, one failed)",
    "remote tool",
    "http toolset",
    "http tool",
    "parsed action",
    "malformed action",
    "final answer",
    "agent run",
    "registry",
    "one-tool registry",
    "tool",
    "result",
    "failed result",
    "image result",
    "progress bar",
]


@pytest.mark.parametrize("name", VIEWS)
def test_every_view_is_left_aligned_inline_without_a_stylesheet(
    name: str, views: dict[str, str]
) -> None:
    html = views[name]
    elements = _elements(html)
    assert "<style" not in html, "untrusted notebooks drop <style>"
    checked = [(tag, attrs) for tag, attrs in elements if tag in ALIGNED]
    assert checked, f"the {name} view has cells or blocks to check"
    for tag, attrs in checked:
        assert _styles(attrs.get("style", "")).get("text-align") == "left", (tag, attrs)
    for tag, attrs in elements:
        if tag == "table":
            assert _styles(attrs["style"])["border-collapse"] == "collapse"


def test_the_pool_view_shows_each_server_and_the_failure_in_red(views: dict[str, str]) -> None:
    idle = views["client pool (idle)"]
    assert "2 servers</caption>" in idle and idle.count(">idle<") == 2
    live = views["client pool (one ready, one failed)"]
    assert ">ready<" in live and "color:#b00'>failed<" in live
    assert "<b>carriers</b>" in live and "<b>broken</b>" in live


def test_the_remote_tool_view_names_its_server(views: dict[str, str]) -> None:
    html = views["remote tool"]
    assert ">server</th>" in html and ">carriers</td>" in html
    assert ">stdio</td>" in html and "input schema" in html


def test_the_http_views_show_the_request_and_hide_context_parameters(
    views: dict[str, str],
) -> None:
    toolset = views["http toolset"]
    assert "2 tools</caption>" in toolset
    assert "GET https://api.test/parcels/{code}" in toolset
    assert "DELETE https://api.test/parcels/{code}" in toolset
    tool = views["http tool"]
    assert ">from context</th>" in tool and ">tenant</td>" in tool
    assert "<code>tenant</code>" not in tool, "the model never sees context parameters"


def test_the_parsed_action_view_shows_text_calls_and_errors(views: dict[str, str]) -> None:
    parsed = views["parsed action"]
    assert "Let me look." in parsed and "1 call</caption>" in parsed
    assert "<b>get_bin</b>" in parsed and "&quot;A-01-01&quot;" in parsed
    malformed = views["malformed action"]
    assert "ACTION block not run:" in malformed and "color:#b00" in malformed
    assert "no ACTION block" in views["final answer"]


def test_a_remote_image_and_its_progress_reach_the_notebook(
    label_call: tuple[ToolResult, list[tuple[float, float | None, str | None]]],
    views: dict[str, str],
) -> None:
    result, seen = label_call
    assert not result.is_error, result.content
    assert [b.type for b in result.blocks] == ["text", "image"]
    assert [(p, t) for p, t, _ in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert seen[-1][2] == "done"
    image = [attrs for tag, attrs in _elements(views["image result"]) if tag == "img"]
    assert len(image) == 1 and image[0]["src"].startswith("data:image/png;base64,iVBORw0KGgo")
    bar = views["progress bar"]
    assert "width:50.0%" in bar and "50% · drawing the barcode" in bar


def test_svg_images_are_not_inlined_and_a_bar_without_total_shows_the_count() -> None:
    svg = ToolResult(
        content="a drawing",
        tool="draw",
        blocks=[ImageContent(data="PHN2Zz4=", mime_type="image/svg+xml")],
    )
    assert "<img" not in svg._repr_html_()
    assert "3 · working" in html_progress(3, None, "working")
    assert "width:100.0%" in html_progress(7, 5)


class _Broken(JsonSchemaTool):
    @property
    def name(self) -> str:
        return "broken"

    @property
    def spec(self) -> ToolSpec:
        raise RuntimeError("the server sent no schema")

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        raise AssertionError("never called")

    def renamed(self, name: str) -> JsonSchemaTool:
        return self


def test_a_view_never_raises_it_shows_what_broke() -> None:
    html = _Broken()._repr_html_()
    assert "tool broken" in html and "the server sent no schema" in html
    assert _styles(dict(_elements(html)[0][1])["style"])["text-align"] == "left"
    shown = html_safe("inventory", lambda: str(1 / 0))
    assert "<b>inventory</b>: cannot be shown (ZeroDivisionError: division by zero)" in shown


def test_the_public_table_helper_escapes_captions_and_headers() -> None:
    html = html_table(["a<b"], [["<i>x</i>"]], caption="1 & 2")
    assert "a&lt;b</th>" in html and "1 &amp; 2</caption>" in html and "<i>x</i>" in html
    assert html_text("<x>", error=True).startswith("<div style='color:#b00")


def test_the_registry_table_counts_in_words(views: dict[str, str]) -> None:
    assert "9 tools</caption>" in views["registry"]
    assert "1 tool</caption>" in views["one-tool registry"]
    headers = [t for t, _ in _elements(views["registry"]) if t == "th"]
    assert len(headers) == 4


def _percent(style: str) -> float:
    return float(_styles(style)["width"].rstrip("%"))


@pytest.mark.parametrize(("view", "wide"), [("registry", (1, 2)), ("http toolset", (2, 3))])
def test_tool_tables_give_the_description_and_parameters_the_width(
    views: dict[str, str], view: str, wide: tuple[int, int]
) -> None:
    """Fixed shares of the full width: the description and parameters columns get most of it,
    and a long module path or URL wraps in its own column instead of widening it."""
    elements = _elements(views[view])
    table = _styles(next(attrs["style"] for tag, attrs in elements if tag == "table"))
    assert table["width"] == "100%" and table["table-layout"] == "fixed"
    shares = [_percent(attrs["style"]) for tag, attrs in elements if tag == "col"]
    headers = [tag for tag, _ in elements if tag == "th"]
    assert len(shares) == len(headers) and sum(shares) == 100
    assert shares[wide[0]] + shares[wide[1]] >= 60
    assert all(shares[i] <= 24 for i in range(len(shares)) if i not in wide)
    cells = [attrs for tag, attrs in elements if tag in ("td", "th")]
    assert all(_styles(c["style"])["overflow-wrap"] == "anywhere" for c in cells)


def test_tables_without_widths_stay_as_wide_as_their_content() -> None:
    elements = _elements(html_table(["a"], [["1"]]))
    assert [tag for tag, _ in elements].count("col") == 0
    assert "table-layout" not in _styles(elements[0][1]["style"])
    shares = _elements(html_table(["a", "b"], [["1", "2"]], widths=["30%", "70%"]))
    assert [_percent(attrs["style"]) for tag, attrs in shares if tag == "col"] == [30, 70]
