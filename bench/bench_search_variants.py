"""Ranking variants that were tried on the tuning halves and not kept: their recall, rerun.

Run: ``.venv/bin/python bench/bench_search_variants.py [--quick] [--half held-out]``.

Prints recall@5/@10 of each variant of :mod:`search_eval.variants` on the ``tune`` half of both
frozen catalogs (see :mod:`search_eval.heldout`), lexical ones always, hybrid ones when
all-MiniLM-L6-v2 is installed here or in ``BENCH_EMBED_PYTHON``'s environment (as for
``bench_search_heldout.py``). Pick a variant on the tuning half only; ``--half held-out``
is for checking the one picked, once. ``--quick`` evaluates every fourth question.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from search_eval import catalog, heldout, variants  # noqa: E402
from search_eval.embedder import Cached, close, minilm  # noqa: E402

from toolkit import ToolRegistry  # noqa: E402
from toolkit.search import embedding_text  # noqa: E402

Sets = list[tuple[str, ToolRegistry, list[heldout.HalfQuestion]]]


def table(
    console: Console,
    title: str,
    sets: Sets,
    rankers: dict[str, Callable[[ToolRegistry, str], list[str]]],
) -> None:
    """One row per ranker, recall@5/@10 per catalog."""
    out = Table(title=title)
    out.add_column("variant")
    for name, _, questions in sets:
        out.add_column(f"{name} (n={len(questions)}) @5/@10", justify="right")
    for label, rank in rankers.items():
        cells = []
        for _, reg, questions in sets:
            found = [(q.expected, rank(reg, q.text)) for q in questions]
            at5 = sum(want in top[:5] for want, top in found) / len(found)
            at10 = sum(want in top[:10] for want, top in found) / len(found)
            cells.append(f"{at5:.3f}/{at10:.3f}")
        out.add_row(label, *cells)
    console.print(out)


def hybrid(console: Console, sets: Sets, half: str) -> None:
    """The fusion variants, when the model is installed."""
    model = minilm()
    if model is None:
        console.print(
            "hybrid variants skipped: all-MiniLM-L6-v2 is not installed here and "
            "BENCH_EMBED_PYTHON is not set (see bench_search.py's docstring)"
        )
        return
    import numpy as np

    embed = Cached(model)
    rankers: dict[str, Callable[[ToolRegistry, str], list[str]]] = {}
    prepared = {}
    for _, reg, _questions in sets:
        names = [t.name for t in reg]
        vectors = np.array(embed([embedding_text(t.spec) for t in reg]), dtype=float)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        prepared[id(reg)] = (names, {n: i for i, n in enumerate(names)}, vectors)

    def ranker(fused: variants.Fused) -> Callable[[ToolRegistry, str], list[str]]:
        def rank(reg: ToolRegistry, text: str) -> list[str]:
            names, row, vectors = prepared[id(reg)]
            query = np.asarray(embed([text])[0], dtype=float)
            cos = vectors @ (query / np.linalg.norm(query))
            found = variants.hits(reg, text)
            scores = fused(cos, found, row, vectors, variants.known_share(reg, text))
            return [names[i] for i in np.argsort(-scores, kind="stable")[:10]]

        return rank

    for label, fused in variants.fusions(np).items():
        rankers[label] = ranker(fused)
    table(console, f"hybrid variants with all-MiniLM-L6-v2, {half} half", sets, rankers)
    close(model)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every fourth question")
    parser.add_argument("--half", choices=heldout.HALVES, default="tune")
    args = parser.parse_args(argv)
    step = 4 if args.quick else 1

    def pick(questions: list[heldout.HalfQuestion]) -> list[heldout.HalfQuestion]:
        return [q for q in questions if q.half == args.half][::step]

    sets: Sets = [
        ("bfcl", heldout.bfcl_registry(), pick(heldout.bfcl_questions())),
        ("project", catalog.registry(), pick(heldout.project_questions())),
    ]
    console = Console(width=140)
    table(console, f"lexical variants, {args.half} half", sets, variants.LEXICAL)
    hybrid(console, sets, args.half)
    return 0


if __name__ == "__main__":
    sys.exit(main())
