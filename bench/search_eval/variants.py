"""Ranking variants tried on the tuning halves and not kept, so their figures can be rerun.

Each lexical variant re-ranks (or widens) the default ranking's best 100 hits of
``registry.search_index``; each hybrid variant fuses those hits with the cosine similarity of
all-MiniLM-L6-v2 (or of wordllama's static model, or both, or of all-mpnet-base-v2), as
:func:`toolkit.search._semantic.fuse` does for ``"mix"``. The settings
are the best of small grids on the tuning halves; ``bench_search_variants.py`` prints them.
"""

from __future__ import annotations

import itertools
import math
import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from toolkit import ToolRegistry
from toolkit.search import FIELD_WEIGHTS, query_terms, split_name, tool_fields

Ranker = Callable[[ToolRegistry, str], list[str]]
Hits = list[tuple[str, float]]

_WORDS = re.compile(r"[^\W_]+")
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))
_CJK = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af\u0e00-\u0e7f"
_SCRIPTS = re.compile(f"[{_CJK}]+|[^{_CJK}]+")


def stem(word: str) -> str:
    """A light stemmer (plural, -ing, -ed) for matching outside SQLite."""
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def words(text: str) -> list[str]:
    """The stemmed query words of a text (stop words and bare numbers left out)."""
    return [stem(w) for chunk in query_terms(text) for w in split_name(chunk)]


@cache
def _fields(reg: ToolRegistry, name: str) -> dict[str, list[str]]:
    return {k: words(v) for k, v in tool_fields(reg.get(name).spec).items()}


def hits(reg: ToolRegistry, text: str, k: int = 100) -> Hits:
    """The default ranking's best ``k`` tools with their BM25 scores."""
    return [(h.tool.name, h.score) for h in reg.search_index.search(text, k=k)]


def _top(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=scores.__getitem__, reverse=True)[:10]


def default(reg: ToolRegistry, text: str) -> list[str]:
    """The default ranking."""
    return [name for name, _ in hits(reg, text, 10)]


def bonus(feature: Callable[[ToolRegistry, str, list[str]], float], alpha: float) -> Ranker:
    """BM25 / best BM25 plus ``alpha`` times a feature of (tool, question words)."""

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        found = hits(reg, text)
        best = found[0][1] if found else 1.0
        asked = words(text)
        return _top({n: s / best + alpha * feature(reg, n, asked) for n, s in found})

    return rank


def name_coverage(reg: ToolRegistry, name: str, asked: list[str]) -> float:
    """The share of the tool name's words that the question holds."""
    own = set(_fields(reg, name)["name"])
    return len(own & set(asked)) / len(own) if own else 0.0


def bigrams(reg: ToolRegistry, name: str, asked: list[str]) -> float:
    """Pairs of adjacent question words found adjacent in the name or description."""
    pairs = set(itertools.pairwise(asked))
    tool = _fields(reg, name)
    return sum(len(pairs & set(itertools.pairwise(t))) for t in (tool["name"], tool["description"]))


def param_names(reg: ToolRegistry, name: str, asked: list[str]) -> float:
    """The share of the tool's parameters whose name shares a word with the question."""
    props = (reg.get(name).spec.input_schema or {}).get("properties") or {}
    own = [{stem(w) for w in split_name(p)} for p in props]
    return sum(1 for p in own if p & set(asked)) / len(own) if own else 0.0


def rm3(docs: int, terms: int, lam: float) -> Ranker:
    """Pseudo-relevance feedback: the best ``terms`` words of the top ``docs`` tools' names and
    descriptions (weighted by BM25 share and IDF) as a second query, mixed in with ``lam``."""

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        first = hits(reg, text)
        if not first:
            return []
        asked, (df, n) = set(words(text)), _df(reg)
        weights: dict[str, float] = {}
        for name, score in first[:docs]:
            toks = _fields(reg, name)["name"] + _fields(reg, name)["description"]
            for w, c in Counter(toks).items():
                if w not in asked and len(w) > 2:
                    idf = max(math.log(n / (1 + df[w])), 0.0)
                    add = score / first[0][1] * c / len(toks) * idf
                    weights[w] = weights.get(w, 0.0) + add
        best = sorted(weights, key=weights.__getitem__, reverse=True)[:terms]
        second = dict(hits(reg, " ".join(best)))
        top2 = max(second.values(), default=1.0)
        return _top(
            {n: (1 - lam) * s / first[0][1] + lam * second.get(n, 0) / top2 for n, s in first}
        )

    return rank


@cache
def _df(reg: ToolRegistry) -> tuple[Counter[str], int]:
    df: Counter[str] = Counter()
    for tool in reg:
        f = _fields(reg, tool.name)
        df.update({w for words in f.values() for w in words})
    return df, len(reg)


def trigrams(lam: float) -> Ranker:
    """Letter trigrams (FTS5's ``trigram`` tokenizer) over the joined name and the description
    for question words of 4+ letters, mixed in with ``lam``."""

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        first = hits(reg, text)
        db, names = _trigram_db(reg)
        terms = [t for t in query_terms(text) if len(t) >= 4]
        if not first or not terms:
            return [n for n, _ in first[:10]]
        sql = "SELECT rowid, -bm25(t, 3.0, 1.0) FROM t WHERE t MATCH ? LIMIT 200"
        second = {
            names[r - 1]: s for r, s in db.execute(sql, (" OR ".join(f'"{t}"' for t in terms),))
        }
        top2 = max(second.values(), default=1.0) or 1.0
        return _top(
            {n: (1 - lam) * s / first[0][1] + lam * second.get(n, 0) / top2 for n, s in first}
        )

    return rank


@cache
def _trigram_db(reg: ToolRegistry) -> tuple[sqlite3.Connection, list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(name, description, tokenize='trigram')")
    names = [t.name for t in reg]
    for row, name in enumerate(names, 1):
        f = tool_fields(reg.get(name).spec)
        joined = f["name"].replace(" ", "")
        db.execute(
            "INSERT INTO t(rowid, name, description) VALUES (?, ?, ?)",
            (row, joined, f["description"]),
        )
    return db, names


def bm25f(b: dict[str, float], k1: float = 1.2) -> Ranker:
    """BM25F over the best 100 hits: one saturation of the fields' weighted term counts, each
    field normalised by its own length with its own ``b`` (the default field weights)."""

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        (df, n), avg = _df(reg), _avg_lengths(reg)
        scores = {}
        for name, _ in hits(reg, text):
            tool, score = _fields(reg, name), 0.0
            for term in set(words(text)):
                tf = sum(
                    FIELD_WEIGHTS[f]
                    * tool[f].count(term)
                    / (1 - b[f] + b[f] * len(tool[f]) / avg[f])
                    for f in FIELD_WEIGHTS
                    if tool[f]
                )
                if tf:
                    score += math.log((n - df[term] + 0.5) / (df[term] + 0.5) + 1) * tf / (k1 + tf)
            scores[name] = score
        return _top(scores)

    return rank


@cache
def _avg_lengths(reg: ToolRegistry) -> dict[str, float]:
    total: Counter[str] = Counter()
    for tool in reg:
        total.update({f: len(words) for f, words in _fields(reg, tool.name).items()})
    return {f: total[f] / len(reg) or 1.0 for f in FIELD_WEIGHTS}


def split_scripts(reg: ToolRegistry, text: str) -> list[str]:
    """Chinese, Japanese, Korean and Thai runs split from the Latin words they touch."""
    return default(reg, " ".join(_SCRIPTS.findall(text)))


def values_down(lam: float) -> Ranker:
    """Words that look like values (capitalised mid-sentence, in quotes, with digits) count
    ``lam`` of a word."""
    quoted = re.compile(r"""(?<!\w)['"‘“](.+?)['"’”](?!\w)""")

    def rank(reg: ToolRegistry, text: str) -> list[str]:
        found = hits(reg, text)
        values = {w for m in quoted.finditer(text) for w in query_terms(m.group(1))}
        for sentence in re.split(r"[.!?]\s+", text):
            for i, tok in enumerate(_WORDS.findall(sentence)):
                upper = i > 0 and tok[:1].isupper() and not tok.isupper()
                if upper or (any(c.isdigit() for c in tok) and not tok.isdigit()):
                    values.add(tok.lower())
        asked = [t for t in query_terms(text) if t in values]
        if not asked or not found:
            return [n for n, _ in found[:10]]
        part = dict(hits(reg, " ".join(asked), 10_000))
        return _top({n: s - (1 - lam) * part.get(n, 0.0) for n, s in found})

    return rank


LEXICAL: dict[str, Ranker] = {
    "default": default,
    "+ 0.2 x name coverage": bonus(name_coverage, 0.2),
    "+ 0.4 x name coverage": bonus(name_coverage, 0.4),
    "+ 0.05 x adjacent word pairs": bonus(bigrams, 0.05),
    "+ 0.1 x parameter-name overlap": bonus(param_names, 0.1),
    "RM3 feedback, 3 tools, 10 words, 0.1": rm3(3, 10, 0.1),
    "letter trigrams, 0.2": trigrams(0.2),
    "BM25F, b 0.5 for name, description, params": bm25f(
        {"name": 0.5, "tags": 0.75, "description": 0.5, "params": 0.5, "aka": 0.75}
    ),
    "CJK/Thai split from Latin": split_scripts,
    "value-like words x 0.3": values_down(0.3),
}


Fused = Callable[[Any, Hits, dict[str, int], Any, float], Any]


def scaled(cos: Any) -> Any:
    """Cosines scaled between this question's worst tool (0) and best (1)."""
    low, high = cos.min(), cos.max()
    return (cos - low) / ((high - low) or 1.0)


def mix(cos: Any, found: Hits, row: dict[str, int], w: float = 0.2, p: float = 1.0) -> Any:
    """``fusion="mix"``: (1 - ``w``) × the scaled cosine + ``w`` × BM25's share of the best
    BM25 score, to the power ``p``."""
    out = (1 - w) * scaled(cos)
    for name, score in found:
        out[row[name]] += w * (score / found[0][1]) ** p
    return out


def fusions(np: Any) -> dict[str, Fused]:
    """Hybrid variants: each maps (cosines of every tool, BM25 hits, name → row, the tool
    vectors, the share of the question's words that some tool holds) to a score per tool."""

    def feedback(cos: Any, found: Hits, row: dict[str, int], vectors: Any, _: float) -> Any:
        top = np.argsort(-mix(cos, found, row), kind="stable")[:3]
        return mix(cos + 0.3 * (vectors @ vectors[top].mean(axis=0)), found, row)

    return {
        "mix 0.2 (default)": lambda c, f, r, v, k: mix(c, f, r),
        "mix 0.2, BM25 share squared": lambda c, f, r, v, k: mix(c, f, r, 0.2, 2.0),
        "mix 0.2, BM25 share cubed": lambda c, f, r, v, k: mix(c, f, r, 0.2, 3.0),
        "mix 0.25, BM25 share cubed": lambda c, f, r, v, k: mix(c, f, r, 0.25, 3.0),
        "BM25 weight 0.3 x known-word share, cubed": lambda c, f, r, v, k: mix(
            c, f, r, 0.3 * k, 3.0
        ),
        "vector feedback, top 3, 0.3": feedback,
    }


def known_share(reg: ToolRegistry, text: str) -> float:
    """The share of a question's words that at least one tool of ``reg`` holds."""
    terms = query_terms(text)
    return sum(1 for t in terms if hits(reg, t, 1)) / len(terms) if terms else 0.0


def _mixed(w: float) -> Fused:
    return lambda c, f, r, v, k: mix(c, f, r, w)


def _alone(c: Any, f: Hits, r: dict[str, int], v: Any, k: float) -> Any:
    return c


def single_model(label: str) -> dict[str, Fused]:
    """A model's embeddings alone and the default hybrid (``mix`` 0.2) with them."""
    return {f"{label} embeddings alone": _alone, f"BM25 + {label}, mix 0.2 (default)": _mixed(0.2)}


WORDLLAMA: dict[str, Fused] = {
    "wordllama embeddings alone": _alone,
    **{f"BM25 + wordllama, mix {w}": _mixed(w) for w in (0.2, 0.3, 0.4, 0.5, 0.6)},
}
"""Fusions with wordllama's static embeddings in place of all-MiniLM-L6-v2's."""

ThreeWay = Callable[[Any, Any, Hits, dict[str, int]], Any]


def _plus(v: float) -> ThreeWay:
    return lambda c, c2, f, r: mix(c, f, r) + v * scaled(c2)


THREE_WAY: dict[str, ThreeWay] = {
    "default mix, all-MiniLM-L6-v2 only": _plus(0.0),
    **{
        f"default mix + {v} x scaled wordllama cosine": _plus(v) for v in (0.05, 0.1, 0.2, 0.3, 0.4)
    },
}
"""Fusions of BM25, all-MiniLM-L6-v2 (``c``) and wordllama (``c2``): the default ``mix`` plus
a share of wordllama's scaled cosine."""


def pair(label: str) -> dict[str, ThreeWay]:
    """all-MiniLM-L6-v2 (``c``) and another model (``c2``) as one: the mean of their scaled
    cosines, alone and in the default ``mix``."""

    def both(c: Any, c2: Any) -> Any:
        return (scaled(c) + scaled(c2)) / 2

    return {
        f"all-MiniLM-L6-v2 + {label}, mean of scaled cosines": lambda c, c2, f, r: both(c, c2),
        "BM25 + that mean, mix 0.2": lambda c, c2, f, r: mix(both(c, c2), f, r),
    }
