"""Semantic ranking for tool search: embed each tool once, rank by cosine, fuse with BM25.

An :class:`Embedder` is any callable that turns a list of texts into one vector per text
(a sentence-transformers model's ``encode``, a LangChain ``Embeddings`` wrapped by
``adapters.langchain.embedder``, a plain function). :class:`SemanticIndex` keeps one unit
vector per tool, embeds only tools added or whose text changed, and ranks every tool by cosine
similarity to the query; :func:`fuse` merges that ranking with BM25's.

A broken embedder never breaks search: an exception, the wrong number of vectors, vectors of
different lengths, or NaN/infinite values make search fall back to BM25 alone, with one warning.
"""

from __future__ import annotations

import functools
import importlib
import logging
import math
import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from operator import mul
from typing import Any, Literal, Protocol

log = logging.getLogger("toolkit.search")

Fusion = Literal["mix", "rrf"]

MAX_EMBED_CHARS = 2000  # a tool's text is cut here before embedding (models read ~256 tokens)
_BATCH = 256  # texts per embedder call
_RRF_K = 60  # the constant of reciprocal rank fusion (Cormack et al.)
_MIX_WEIGHT = 0.2  # weight of BM25 (scaled to 0..1) against cosine in the "mix" fusion
_RETRY_S = 60.0  # after a failure, the embedder is not called again for this long
_DIGITS = 6  # cosines are rounded so that numpy and pure Python rank ties alike
_USE_NUMPY = True  # numpy, when installed, does the dot products; pure Python ranks the same


@functools.cache
def _numpy() -> Any:
    """numpy, imported on the first ranking (not with ``toolkit``), or None if not installed."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


class Embedder(Protocol):
    """Turns texts into vectors: one sequence of floats per text, all of one length.

    Any callable of this shape works: ``SentenceTransformer("...").encode``, a function that
    calls an embeddings API, ``adapters.langchain.embedder(OpenAIEmbeddings())``. If it also has
    a callable ``embed_query(text) -> vector`` attribute, questions are embedded with that (for
    models that embed questions and passages differently).
    """

    def __call__(self, texts: list[str], /) -> Sequence[Sequence[float]]: ...


class EmbedderFailed(Exception):
    """The embedder raised or returned something that is not one finite vector per text."""


def embed_text(fields: Mapping[str, str]) -> str:
    """The text embedded for a tool: its name's words, description and parameters."""
    text = f"{fields['name']}: {fields['description'].strip()} {fields['params']}".strip()
    return text[:MAX_EMBED_CHARS]


class SemanticIndex:
    """Unit vectors of tools by name, refreshed for the names marked since the last search.

    Not thread safe by itself: :class:`toolkit.search.ToolIndex` calls it under its lock.
    """

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        query = getattr(embedder, "embed_query", None)
        self._query = query if callable(query) else None
        self._vectors: dict[str, tuple[str, array[float]]] = {}  # name → (text, unit vector)
        self._stale: set[str] = set()
        self._dim: int | None = None
        self._matrix: Any = None  # numpy copy of the vectors, rebuilt after a change
        self._names: list[str] = []
        self._warned = False
        self._retry_at = 0.0

    def mark(self, name: str) -> None:
        """Note that ``name`` was added, removed or replaced (re-embedded only if its text
        changed)."""
        self._stale.add(name)

    def scores(self, query: str, texts: Callable[[str], str | None]) -> dict[str, float] | None:
        """Cosine similarity of every tool to ``query``, or ``None`` when the embedder failed.

        Args:
            query: The question.
            texts: The embedding text of an indexed tool by name (``None``: not indexed).
        """
        if time.monotonic() < self._retry_at:
            return None
        try:
            self._refresh(texts)
            if not self._vectors:
                return {}
            if self._query is not None:
                raw: Sequence[Sequence[float]] = [self._query(query[:MAX_EMBED_CHARS])]
            else:
                raw = self._embedder([query[:MAX_EMBED_CHARS]])
            (vector,) = self._check(raw, 1)
        except Exception as exc:
            self._failed(exc)
            return None
        return dict(zip(self._names, self._cosines(vector), strict=True))

    def _refresh(self, texts: Callable[[str], str | None]) -> None:
        if not self._stale:
            return
        todo: dict[str, str] = {}
        for name in sorted(self._stale):
            text = texts(name)
            if text is None:
                self._vectors.pop(name, None)
            elif name not in self._vectors or self._vectors[name][0] != text:
                todo[name] = text
        names = list(todo)
        for start in range(0, len(names), _BATCH):
            chunk = names[start : start + _BATCH]
            batch = [todo[n] for n in chunk]
            vectors = self._check(self._embedder(batch), len(batch))
            self._vectors.update(zip(chunk, zip(batch, vectors, strict=True), strict=True))
        self._stale.clear()
        self._names = list(self._vectors)
        self._matrix = None
        if not self._vectors:
            self._dim = None

    def _check(self, raw: Sequence[Sequence[float]], count: int) -> list[array[float]]:
        """Unit vectors out of what the embedder returned, or :class:`EmbedderFailed`."""
        if isinstance(raw, str | bytes) or len(raw) != count:
            got = "a string" if isinstance(raw, str | bytes) else f"{len(raw)} vectors"
            raise EmbedderFailed(f"returned {got} for {count} texts")
        dim = self._dim
        out: list[array[float]] = []
        for vec in raw:
            try:
                values = array("d", (float(x) for x in vec))
            except (TypeError, ValueError) as exc:
                raise EmbedderFailed(f"returned a vector that is not numbers ({exc})") from None
            dim = len(values) if dim is None else dim
            if len(values) != dim or not dim:
                raise EmbedderFailed(f"returned a vector of {len(values)} numbers, not {dim}")
            if not all(map(math.isfinite, values)):
                raise EmbedderFailed("returned NaN or infinite values")
            norm = math.sqrt(math.fsum(x * x for x in values))
            out.append(array("d", (x / norm for x in values)) if norm else values)
        self._dim = dim
        return out

    def _cosines(self, query: array[float]) -> list[float]:
        np = _numpy() if _USE_NUMPY else None
        if np is not None:
            if self._matrix is None:
                self._matrix = np.array([self._vectors[n][1] for n in self._names], dtype=float)
            # einsum, not @: a matrix-vector product this small gains nothing from BLAS threads,
            # and waking them cost 15 ms a search on a loaded two-core machine (einsum: 0.3 ms)
            products: list[float] = np.einsum(
                "ij,j->i", self._matrix, np.frombuffer(query)
            ).tolist()
        else:
            products = [sum(map(mul, self._vectors[n][1], query)) for n in self._names]
        return [round(p, _DIGITS) for p in products]

    def _failed(self, exc: BaseException) -> None:
        # The vectors already checked are kept: a failed question or batch costs no re-embedding.
        self._retry_at = time.monotonic() + _RETRY_S
        reason = exc if isinstance(exc, EmbedderFailed) else f"raised {exc!r}"
        message = (
            "search.embedder_failed: semantic tool search is off, ranking by BM25 only, "
            "because the embedder %s. Give configure_search(embedder=...) a callable that "
            "returns one finite vector of one length per text (retried in %.0f s)."
        )
        if self._warned:
            log.debug(message, reason, _RETRY_S)
        else:
            self._warned = True
            log.warning(message, reason, _RETRY_S)


def fuse(
    lexical: Sequence[tuple[str, float]],
    cosine: Mapping[str, float],
    how: Fusion,
) -> list[tuple[str, float]]:
    """One ranking from BM25's (best first, with scores) and every tool's cosine similarity.

    ``"mix"``: ``0.2 * bm25 / best bm25 + 0.8 * cosine``, the cosine scaled to 0..1 between the
    worst and the best tool of this query (so models whose cosines crowd near 0.8 weigh the
    same as those spread over 0..1). ``"rrf"``: reciprocal rank fusion, ``1/(60 + rank)``
    summed over both rankings.
    """
    fused: dict[str, float] = {}
    if how == "rrf":
        for rank, (name, _) in enumerate(lexical, 1):
            fused[name] = 1 / (_RRF_K + rank)
        by_cosine = sorted(cosine, key=cosine.__getitem__, reverse=True)
        for rank, name in enumerate(by_cosine, 1):
            fused[name] = fused.get(name, 0.0) + 1 / (_RRF_K + rank)
    else:
        low, high = min(cosine.values(), default=0.0), max(cosine.values(), default=0.0)
        spread = (high - low) or 1.0
        for name, similarity in cosine.items():
            fused[name] = (1 - _MIX_WEIGHT) * (similarity - low) / spread
        best = max((s for _, s in lexical), default=0.0) or 1.0
        for name, score in lexical:
            fused[name] = fused.get(name, 0.0) + _MIX_WEIGHT * score / best
    return sorted(fused.items(), key=lambda item: item[1], reverse=True)
