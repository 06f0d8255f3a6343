"""The evaluation catalog as a :class:`ToolRegistry`, its questions, and a textbook baseline.

Catalog: the real tools of ``real_tools.json`` (demo functions, the demo's and the tests' MCP
servers, two third-party MCP servers, an OpenAPI service), the hand-written tools of
:mod:`.handwritten`, and the generated business APIs of :mod:`.generated`.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit import JsonSchemaTool, ToolContext, ToolRegistry, ToolResult, ToolSpec

from . import generated, handwritten, real_questions

HERE = Path(__file__).resolve().parent


class SpecTool(JsonSchemaTool):
    """A tool known by its spec only (what a remote server lists); calling it echoes its name."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = spec

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content=f"{self.name} done", tool=self.name)

    def renamed(self, name: str) -> SpecTool:
        return SpecTool(dataclasses.replace(self._spec, name=name))


@dataclass(frozen=True)
class Question:
    text: str
    expected: str
    kind: str  # "real", "hand-written", "generated, API noun" or "generated, paraphrased"


def _handwritten_specs() -> list[dict[str, Any]]:
    rows = []
    for name, description, params, _ in handwritten.ROWS:
        props = {}
        for part in params.split(" | "):
            pname, pdesc = part.split(":", 1)
            props[pname.strip()] = {"type": "string", "description": pdesc.strip()}
        rows.append(
            {
                "name": name,
                "description": description,
                "input_schema": {"type": "object", "properties": props},
                "tags": [],
                "source": "hand-written",
            }
        )
    return rows


def catalog_specs() -> list[dict[str, Any]]:
    """Every tool of the catalog as plain spec data (about 2,200 tools)."""
    real = json.loads((HERE / "real_tools.json").read_text())
    specs, _ = generated.build()
    return [*real, *_handwritten_specs(), *specs]


def questions() -> list[Question]:
    """Every question with the tool that answers it; none contains that tool's name."""
    found = [Question(q, n, "real") for q, n in real_questions.QUESTIONS]
    found += [Question(row[3], row[0], "hand-written") for row in handwritten.ROWS]
    found += [
        Question(q, n, "generated, paraphrased" if said else "generated, API noun")
        for q, n, said in generated.build()[1]
    ]
    for q in found:
        spaced = q.expected.replace("_", " ").replace("-", " ").lower()
        if q.expected.lower() in q.text.lower() or spaced in q.text.lower():
            raise AssertionError(f"question {q.text!r} holds its tool's name {q.expected!r}")
    return found


def to_tool(row: dict[str, Any]) -> SpecTool:
    spec = ToolSpec(
        name=row["name"],
        description=row["description"],
        input_schema=row["input_schema"],
        tags=frozenset(row.get("tags", ())),
        source=row.get("source", ""),
    )
    return SpecTool(spec)


def registry(size: int | None = None, *, keep: Collection[str] = ()) -> ToolRegistry:
    """The catalog as a registry; ``size`` samples that many tools (always keeping ``keep``)."""
    rows = catalog_specs()
    if size is not None and size < len(rows):
        rng = random.Random(11)
        kept = [r for r in rows if r["name"] in keep]
        rest = [r for r in rows if r["name"] not in keep]
        rows = kept + rng.sample(rest, max(0, size - len(kept)))
    reg = ToolRegistry()
    for row in rows:
        reg.add(to_tool(row))
    return reg


def openai_function(spec: ToolSpec) -> dict[str, Any]:
    """What a function-calling model is sent for one tool."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.input_schema,
        },
    }


class TextbookBM25:
    """Plain BM25 (SQLite FTS5, default tokenizer, one column, no stemming, no weights) over
    each tool's name, description and parameter names and descriptions: the baseline."""

    def __init__(self, reg: ToolRegistry) -> None:
        self._db = sqlite3.connect(":memory:")
        self._db.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
        self._names: dict[int, str] = {}
        for i, tool in enumerate(reg, start=1):
            spec = tool.spec
            params = spec.input_schema.get("properties", {})
            words = [spec.name, spec.description]
            for pname, sub in params.items():
                words += [pname, str(sub.get("description", ""))]
            self._names[i] = spec.name
            self._db.execute("INSERT INTO t(rowid, body) VALUES (?, ?)", (i, " ".join(words)))

    def search(self, query: str, k: int) -> list[str]:
        terms = {w.lower() for w in re.findall(r"\w+", query)}
        if not terms:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)
        rows = self._db.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, k)
        )
        return [self._names[r[0]] for r in rows]
