"""Ranking variants that were tried on the tuning halves and not kept: their recall, rerun.

Run: ``.venv/bin/python bench/bench_search_variants.py [--quick] [--half held-out]
[--part lexical|minilm|wordllama]``.

Prints recall@5/@10 of each variant of :mod:`search_eval.variants` on the ``tune`` half of both
frozen catalogs (see :mod:`search_eval.heldout`), lexical ones always, hybrid ones when
all-MiniLM-L6-v2 is installed here or in ``BENCH_EMBED_PYTHON``'s environment (as for
``bench_search_heldout.py``), and those with wordllama's static model (alone, fused with BM25,
and added to the default hybrid) when the ``wordllama`` package is installed there too, with
the median time each model takes to embed one question. Pick a variant on the tuning half only;
``--half held-out`` is for checking the one picked, once. ``--quick`` evaluates every fourth
question; ``--part`` prints one group of tables.
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

from search_eval import catalog, heldout, variants  # noqa: E402
from search_eval.embedder import Cached, WorkerEmbedder, close, minilm, wordllama  # noqa: E402

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


Prepared = dict[int, tuple[list[str], dict[str, int], Any]]


def _prepare(embed: Cached, sets: Sets) -> Prepared:
    """Per catalog: its tool names, name → row, and the tools' unit vectors."""
    import numpy as np

    prepared = {}
    for _, reg, _questions in sets:
        names = [t.name for t in reg]
        vectors = np.array(embed([embedding_text(t.spec) for t in reg]), dtype=float)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        prepared[id(reg)] = (names, {n: i for i, n in enumerate(names)}, vectors)
    return prepared


def _cosines(embed: Cached, prepared: Prepared, reg: ToolRegistry, text: str) -> Any:
    import numpy as np

    query = np.asarray(embed([text])[0], dtype=float)
    return prepared[id(reg)][2] @ (query / np.linalg.norm(query))


def _skipped(console: Console, what: str, needs: str) -> None:
    console.print(
        f"{what} skipped: {needs} is not installed here and BENCH_EMBED_PYTHON is not set "
        "(see bench_search.py's docstring)"
    )


def hybrid(console: Console, sets: Sets, half: str, model: Any, fused: dict[str, Any]) -> None:
    """The fusion variants of ``fused`` with ``model``'s cosines."""
    import numpy as np

    embed = Cached(model)
    prepared = _prepare(embed, sets)

    def ranker(fuse: variants.Fused) -> Callable[[ToolRegistry, str], list[str]]:
        def rank(reg: ToolRegistry, text: str) -> list[str]:
            names, row, vectors = prepared[id(reg)]
            cos = _cosines(embed, prepared, reg, text)
            found = variants.hits(reg, text)
            scores = fuse(cos, found, row, vectors, variants.known_share(reg, text))
            return [names[i] for i in np.argsort(-scores, kind="stable")[:10]]

        return rank

    name = "wordllama" if fused is variants.WORDLLAMA else "all-MiniLM-L6-v2"
    rankers = {label: ranker(fuse) for label, fuse in fused.items()}
    table(console, f"hybrid variants with {name}, {half} half", sets, rankers)


def three_way(console: Console, sets: Sets, half: str, first: Any, second: Any) -> None:
    """BM25, all-MiniLM-L6-v2 (``first``) and wordllama (``second``) fused."""
    import numpy as np

    embeds = (Cached(first), Cached(second))
    prepared = [_prepare(e, sets) for e in embeds]

    def ranker(fuse: variants.ThreeWay) -> Callable[[ToolRegistry, str], list[str]]:
        def rank(reg: ToolRegistry, text: str) -> list[str]:
            names, row, _ = prepared[0][id(reg)]
            cos = [_cosines(e, p, reg, text) for e, p in zip(embeds, prepared, strict=True)]
            scores = fuse(cos[0], cos[1], variants.hits(reg, text), row)
            return [names[i] for i in np.argsort(-scores, kind="stable")[:10]]

        return rank

    rankers = {label: ranker(fuse) for label, fuse in variants.THREE_WAY.items()}
    table(console, f"BM25 + all-MiniLM-L6-v2 + wordllama, {half} half", sets, rankers)


def question_ms(console: Console, models: dict[str, Any], texts: list[str]) -> None:
    """The median time to embed one question, per model (through the pipe of a worker without
    a cache when the model runs in another Python)."""
    for label, model in models.items():
        if isinstance(model, WorkerEmbedder):
            model = WorkerEmbedder(model.start, model=model.model)
        model.encode(["warm up"])  # loads the model
        samples = []
        for text in texts:
            start = time.perf_counter_ns()
            model.encode([text])
            samples.append(time.perf_counter_ns() - start)
        close(model)
        where = "worker process" if isinstance(model, WorkerEmbedder) else "this process"
        console.print(
            f"embedding one question with {label} ({where}): median "
            f"{statistics.median(samples) / 1e6:.2f} ms over {len(texts)} (loaded machine)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="every fourth question")
    parser.add_argument("--half", choices=heldout.HALVES, default="tune")
    parser.add_argument(
        "--part",
        choices=("all", "lexical", "minilm", "wordllama"),
        default="all",
        help="wordllama: its fusions, the three-way ones and the time to embed a question",
    )
    args = parser.parse_args(argv)
    step = 4 if args.quick else 1

    def pick(questions: list[heldout.HalfQuestion]) -> list[heldout.HalfQuestion]:
        return [q for q in questions if q.half == args.half][::step]

    sets: Sets = [
        ("bfcl", heldout.bfcl_registry(), pick(heldout.bfcl_questions())),
        ("project", catalog.registry(), pick(heldout.project_questions())),
    ]
    console = Console(width=140)
    if args.part in ("all", "lexical"):
        table(console, f"lexical variants, {args.half} half", sets, variants.LEXICAL)
    if args.part == "lexical":
        return 0
    models = {"all-MiniLM-L6-v2": minilm()}
    if args.part in ("all", "wordllama"):
        models["wordllama"] = wordllama()
    try:
        embedded(console, sets, args.half, models, args.part)
    finally:
        for model in models.values():
            close(model)
    return 0


def embedded(console: Console, sets: Sets, half: str, models: dict[str, Any], part: str) -> None:
    """The tables of the variants that need a model, those whose models are installed."""
    import numpy as np

    first, second = models["all-MiniLM-L6-v2"], models.get("wordllama")
    if part != "wordllama":
        if first is None:
            _skipped(console, "hybrid variants", "all-MiniLM-L6-v2")
        else:
            hybrid(console, sets, half, first, variants.fusions(np))
    if part == "minilm":
        return
    if second is None:
        _skipped(console, "wordllama variants", "wordllama")
        return
    hybrid(console, sets, half, second, variants.WORDLLAMA)
    if first is None:
        _skipped(console, "three-way variants", "all-MiniLM-L6-v2")
    else:
        three_way(console, sets, half, first, second)
    texts = [q.text for q in sets[1][2][:150]]
    question_ms(console, {k: m for k, m in models.items() if m is not None}, texts)


if __name__ == "__main__":
    sys.exit(main())
