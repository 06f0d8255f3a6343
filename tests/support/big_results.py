"""Tools whose results are far past any model's budget, one per shape, generated from a seed.

Served as an MCP server by the result-budget tests
(``python -m adapters.mcp_server tests.support.big_results:registry``) and called in process
by the core tests. Every tool is deterministic: the same arguments give the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

from toolkit import ImageContent, TextContent, ToolRegistry, mcp_tool

MB = 1_000_000

#: The word a haystack hides at a random offset.
NEEDLE = "NEEDLE-7f3a"


def _words(rng: random.Random, count: int) -> list[str]:
    vocab = ["alpha", "bravo", "north", "south", "bin", "order", "ship", "é", "ünïcode", "日本"]
    return [rng.choice(vocab) for _ in range(count)]


@mcp_tool(read_only=True)
def json_array(mb: float, seed: int = 1) -> Any:
    """Rows of an inventory table, about ``mb`` megabytes of JSON.

    Args:
        mb: Megabytes of JSON.
        seed: Random seed.
    """
    rng = random.Random(seed)
    count = int(mb * MB / 120)
    text = " ".join(_words(rng, 8))
    return [
        {
            "id": i,
            "sku": f"S-{i:07d}",
            "qty": i % 97,
            "price": i / 7,
            "note": text,
            "ok": i % 2 == 0,
        }
        for i in range(count)
    ]


@mcp_tool(read_only=True)
def json_object(mb: float, seed: int = 1) -> Any:
    """A report object: a total, a big list, a long text, nested metadata.

    Args:
        mb: Megabytes of JSON.
        seed: Random seed.
    """
    rng = random.Random(seed)
    rows = int(mb * MB / 2 / 40)
    return {
        "total": rows,
        "rows": [{"id": i, "zone": rng.choice("NSEW")} for i in range(rows)],
        "text": 'quote " backslash \\ tab \t newline \n é 😀 ' * int(mb * MB / 2 / 40),
        "meta": {"source": "warehouse", "pages": [1, 2, 3]},
        "next": "cursor-42",
    }


@mcp_tool(read_only=True)
def nested(depth: int, width: int) -> Any:
    """Data nested ``depth`` levels deep with ``width`` children a level and long leaves.

    Args:
        depth: Levels.
        width: Children per level.
    """
    leaf: Any = "leaf " * 2000
    for level in range(depth):
        leaf = {"level": level, "children": [leaf] * width, "name": f"node {level}"}
    return leaf


@mcp_tool(read_only=True)
def server_log(mb: float, seed: int = 1) -> str:
    """A server's log, about ``mb`` megabytes.

    Args:
        mb: Megabytes of text.
        seed: Random seed.
    """
    rng = random.Random(seed)
    line = "2026-11-27T10:00:{:02d}Z {} worker-{} handled GET /orders/{} in {} ms\n"
    lines = [
        line.format(i % 60, rng.choice(["INFO", "WARN", "DEBUG"]), i % 8, i, i % 300)
        for i in range(int(mb * MB / 70))
    ]
    return "".join(lines)


@mcp_tool(read_only=True)
def html_page(mb: float) -> str:
    """An HTML page of about ``mb`` megabytes.

    Args:
        mb: Megabytes of HTML.
    """
    row = "<tr><td class='a'>Bin B-12</td><td>north &amp; south</td><td>&lt;42&gt;</td></tr>\n"
    body = row * int(mb * MB / len(row))
    return f"<!doctype html><html><head><title>Bins</title></head><body><table>\n{body}</table></body></html>"


@mcp_tool(read_only=True)
def csv_table(mb: float) -> str:
    """A CSV export of about ``mb`` megabytes, with a header row.

    Args:
        mb: Megabytes of CSV.
    """
    rows = [f'{i},S-{i:07d},"Bin, north",{i % 97}\n' for i in range(int(mb * MB / 30))]
    return "id,sku,place,qty\n" + "".join(rows)


@mcp_tool(read_only=True)
def image(kb: int) -> list[Any]:
    """A caption and a PNG of about ``kb`` kilobytes.

    Args:
        kb: Kilobytes of image data.
    """
    data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(kb * 1000)).decode()
    return [TextContent(text="The warehouse floor plan."), ImageContent(data, "image/png")]


@mcp_tool(read_only=True)
def json_text(mb: float) -> TextContent:
    """Rows as indented JSON text, with no structured copy (as many remote servers send them).

    Args:
        mb: Megabytes of text.
    """
    rows = [{"id": i, "name": f'bin "{i}" \\ é 😀'} for i in range(int(mb * MB / 48))]
    return TextContent(text=json.dumps(rows, indent=1, ensure_ascii=False))


@mcp_tool(read_only=True)
def haystack(mb: float, seed: int) -> str:
    """Text of about ``mb`` megabytes with :data:`NEEDLE` at a random place.

    Args:
        mb: Megabytes of text.
        seed: Random seed (decides where the needle is).
    """
    rng = random.Random(seed)
    size = int(mb * MB)
    at = rng.randrange(size // 10, size - 100)
    filler = "hay " * (size // 4)
    return f"{filler[:at]}{NEEDLE} is in bin B-{seed}{filler[at:]}"


_TOOLS = (
    json_array,
    json_object,
    json_text,
    nested,
    server_log,
    html_page,
    csv_table,
    image,
    haystack,
)

#: Served with a budget of 20,000 characters (the MCP server tests).
registry = ToolRegistry(result_budget=20_000)

#: Served whole (a remote source whose results the client's registry must cut).
whole = ToolRegistry(result_budget=0)

for _tool in _TOOLS:
    registry.register(_tool)
    whole.register(_tool)


def fresh_registry(budget: int) -> ToolRegistry:
    """A registry of its own with these tools and ``budget``: never the module's ``registry``,
    which gains a ``read_result`` of its own once a test serves it and cuts a result."""
    fresh = ToolRegistry(result_budget=budget, timeout=None)
    for tool in _TOOLS:
        fresh.register(tool)
    return fresh
