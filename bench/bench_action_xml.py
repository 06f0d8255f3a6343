"""The ``<ACTION>`` protocol: parsing answers and rendering the tools prompt.

Run: ``.venv/bin/python bench/bench_action_xml.py [--quick]`` (one process; ``--quick`` runs
fewer rounds, for smoke runs where the figures mean little).

* parse a typical answer (a sentence and a block with a scalar, a list, a nested object and a
  CDATA value), coerced by the tool's schema, against the bare anchor
  ``xml.etree.ElementTree.fromstring`` of the same block (stdlib, not hardened, no repair, no
  coercion): the ratio is the price of hardening, repair and coercion. Target: under 100 µs.
* parse a 1 MB answer (prose, then a small block), against ``str.find`` of ``<ACTION>`` in it,
  the least any parser must do: the ratio shows the scan stays linear.
* parse a hostile 400 KB answer (a value of 400,000 stray ``<``, the shape that took 4.3 s
  before the repair went linear), against ``html.escape`` of the same text, the least any
  repair must do: the ratio shows the constant per character stays small.
* stream a 1 MB answer in 4-character chunks through the text gate of a streamed answer,
  against joining the same chunks: the ratio shows streaming stays linear (it re-joined the
  whole answer per chunk before).
* render the tools prompt for 50 tools with examples, against ``json.dumps`` of the same tools
  in OpenAI function format (what a function-calling request would carry).

Figures are medians of wall time per operation (µs), one process, one run.
"""

from __future__ import annotations

import argparse
import html
import json
import statistics
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.action_xml import parse_action, render_tools_prompt
from adapters.action_xml._stream import TextGate
from toolkit import ToolSpec

BLOCK = """<ACTION>
    <register_people>
        <names>
            <item>Alice</item>
            <item>Bob</item>
        </names>
        <address>
            <street>123 Main St</street>
            <city>Anytown</city>
        </address>
        <count>2</count>
        <note><![CDATA[call before 5 < 6 & ask for "Bob"]]></note>
    </register_people>
</ACTION>"""
ANSWER = "I will register both people at their shared address.\n" + BLOCK

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "names": {"type": "array", "items": {"type": "string"}, "description": "Their names."},
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            "required": ["street", "city"],
        },
        "count": {"type": "integer", "description": "How many."},
        "note": {"type": "string", "description": "A note for the office."},
        "priority": {"type": "string", "enum": ["low", "high"], "default": "low"},
    },
    "required": ["names", "address", "count"],
}
SPEC = ToolSpec(
    name="register_people", description="Register people at one address.", input_schema=SCHEMA
)


def _specs(count: int) -> list[ToolSpec]:
    return [
        ToolSpec(
            name=f"tool_{i}", description=f"Tool number {i}: does thing {i}.", input_schema=SCHEMA
        )
        for i in range(count)
    ]


def _median_us(work: Callable[[], Any], rounds: int) -> float:
    work()
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        work()
        samples.append((time.perf_counter_ns() - started) / 1000)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rounds = 50 if quick else 2000
    big_rounds = 3 if quick else 30

    expected = parse_action(ANSWER, [SPEC])
    assert expected.error is None and expected.calls[0].arguments["count"] == 2
    big = ("The warehouse report follows. " * 35_000)[:1_000_000] + "\n" + BLOCK
    assert parse_action(big, [SPEC]).calls == expected.calls
    stray = "<" * 400_000
    hostile = f"Here.<ACTION><register_people><note>{stray}</note></register_people></ACTION>"
    assert parse_action(hostile, [SPEC]).calls[0].arguments["note"] == stray
    chunks = [big[i : i + 4] for i in range(0, len(big), 4)]

    def stream() -> str:
        gate = TextGate()
        shown = "".join(gate.feed(chunk) for chunk in chunks)
        return shown + gate.finish()

    assert stream() == big[: big.index("<ACTION>")].strip()
    specs = _specs(50)
    openai_tools = [
        {
            "type": "function",
            "function": {
                "name": s.name,
                "description": s.description,
                "parameters": s.input_schema,
            },
        }
        for s in specs
    ]

    rows = [
        (
            "parse a typical answer",
            _median_us(lambda: parse_action(ANSWER, [SPEC]), rounds),
            _median_us(lambda: ET.fromstring(BLOCK.replace("5 < 6 & ", "")), rounds),
            "ElementTree.fromstring",
            "< 100 µs",
            100.0,
        ),
        (
            "parse a 1 MB answer",
            _median_us(lambda: parse_action(big, [SPEC]), big_rounds),
            _median_us(lambda: big.find("<ACTION>"), big_rounds),
            "str.find",
            "< 20 ms",
            20_000.0,
        ),
        (
            "parse 400 KB of stray '<'",
            _median_us(lambda: parse_action(hostile, [SPEC]), big_rounds),
            _median_us(lambda: html.escape(hostile), big_rounds),
            "html.escape",
            "< 200 ms",
            200_000.0,
        ),
        (
            "stream 1 MB in 4-char chunks",
            _median_us(stream, big_rounds),
            _median_us(lambda: "".join(chunks), big_rounds),
            "str.join of the chunks",
            "< 2 s",
            2_000_000.0,
        ),
        (
            "render the prompt for 50 tools",
            _median_us(lambda: render_tools_prompt(specs), max(rounds // 20, 3)),
            _median_us(lambda: json.dumps(openai_tools), max(rounds // 20, 3)),
            "json.dumps OpenAI tools",
            "< 50 ms",
            50_000.0,
        ),
    ]
    table = Table(title="<ACTION> protocol (median wall µs per operation)")
    for column in ("operation", "ours µs", "anchor", "anchor µs", "ours / anchor", "target", "met"):
        table.add_column(column)
    for label, ours, anchor, name, target, limit in rows:
        table.add_row(
            label,
            f"{ours:,.1f}",
            name,
            f"{anchor:,.1f}",
            f"{ours / anchor:,.1f}×" if anchor else "-",
            target,
            "yes" if ours < limit else "no",
        )
    Console(width=140).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
