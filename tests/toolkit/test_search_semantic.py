"""Hybrid tool search: an embedder's cosine ranking fused with BM25, lazily kept in step."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import numpy
import pytest

import toolkit.search._semantic as semantic
from tests.support.trigram_embedder import trigram_vectors
from toolkit import ToolRegistry, mcp_tool
from toolkit.search import ToolIndex

_TOOLS = [
    ("get_weather_forecast", "Weather forecast for a city: temperature, rain and wind."),
    ("convert_currency", "Convert an amount of money between two currencies."),
    ("refund_payment", "Give money back for a card payment."),
    ("translate_text", "Translate text into another language."),
    ("list_employees", "Staff directory of one department."),
]
_TYPO = "wether forcast for paris"  # no word in common with any tool, after stemming too


def _tool(name: str, description: str, tags: frozenset[str] = frozenset()) -> Any:
    def run() -> str:
        return name

    return mcp_tool(name=name, description=description, tags=set(tags))(run)


class _Counting:
    """The trigram embedder, counting the texts it is given."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return trigram_vectors(texts)


def _registry(embedder: Any = None, tools: Sequence[tuple[str, str]] = _TOOLS) -> ToolRegistry:
    registry = ToolRegistry()
    for name, description in tools:
        registry.register(_tool(name, description))
    if embedder is not None:
        registry.configure_search(embedder=embedder)
    return registry


def _names(tools: Sequence[Any]) -> list[str]:
    return [t.name for t in tools]


def test_a_question_sharing_no_word_is_found_only_with_the_embedder() -> None:
    assert _registry().search(_TYPO) == []
    assert _names(_registry(trigram_vectors).search(_TYPO, k=1)) == ["get_weather_forecast"]


def _cosine(a: str, b: str) -> float:
    u, v = trigram_vectors([a, b])
    return sum(x * y for x, y in zip(u, v)) / math.hypot(*u) / math.hypot(*v)


@pytest.mark.parametrize("fusion", ["mix", "rrf"])
def test_fusion_keeps_a_strong_lexical_hit(fusion: str) -> None:
    rollout = (
        "kubectl_rollout",
        "Restart the pods of a deployment one at a time, waiting for each to be ready.",
    )
    decoy = ("rollover_roll_call", "Roll call of rollovers, rolls and trolls.")
    question = "rollout with kubectl"
    # the embedder alone prefers the decoy; BM25 finds only the tool named by the question
    assert _cosine(question, "rollover roll call: " + decoy[1]) > _cosine(
        question, "kubectl rollout: " + rollout[1]
    )
    registry = _registry(tools=[*_TOOLS, rollout, decoy])
    assert _names(registry.search(question)) == ["kubectl_rollout"]
    registry.configure_search(embedder=trigram_vectors, fusion=fusion)  # type: ignore[arg-type]
    assert _names(registry.search(question, k=2)) == ["kubectl_rollout", "rollover_roll_call"]


def test_tags_still_filter_hybrid_results() -> None:
    registry = ToolRegistry()
    registry.register(_tool("get_weather_forecast", "Weather forecast.", frozenset({"outdoor"})))
    registry.register(_tool("weather_station_log", "Station readings.", frozenset({"lab"})))
    registry.configure_search(embedder=trigram_vectors)
    assert _names(registry.search("wether", tags={"lab"})) == ["weather_station_log"]
    assert _names(registry.search("wether", tags={"none"})) == []


def test_tools_are_embedded_once_and_again_only_when_changed() -> None:
    embedder = _Counting()
    registry = _registry(embedder)
    assert embedder.texts == []  # lazy: nothing until the first search
    registry.search(_TYPO)
    assert len(embedder.texts) == len(_TOOLS) + 1  # every tool, then the question
    embedder.texts.clear()
    registry.search("refund")
    assert embedder.texts == ["refund"]  # only the question

    embedder.texts.clear()
    registry.register(_tool("tide_tables", "Tide tables for a harbour."))
    registry.remove("refund_payment")
    registry.remove("convert_currency")
    registry.register(
        _tool("convert_currency", "Convert an amount of money between two currencies.")
    )
    registry.remove("translate_text")
    registry.register(_tool("translate_text", "Translate speech into sign language."))
    found = _names(registry.search("tide harbour money refund", k=10))
    assert "refund_payment" not in found and "tide_tables" in found
    embedded = embedder.texts[:-1]  # the same text again is not embedded again
    assert len(embedded) == 2
    assert embedded[0].startswith("tide tables:") and embedded[1].startswith("translate text:")


def test_huge_texts_are_cut_before_embedding() -> None:
    embedder = _Counting()
    registry = _registry(embedder)
    registry.register(_tool("novel", "word " * 50_000))
    registry.search("weather " * 20_000)
    assert max(map(len, embedder.texts)) <= semantic.MAX_EMBED_CHARS


def _raises(texts: list[str]) -> list[list[float]]:
    raise ConnectionError("embeddings service unreachable")


def _one_short(texts: list[str]) -> list[list[float]]:
    return trigram_vectors(texts)[1:]


def _ragged(texts: list[str]) -> list[list[float]]:
    return [[1.0] * (3 + i) for i in range(len(texts))]


def _nan(texts: list[str]) -> list[list[float]]:
    return [[math.nan, *v[1:]] for v in trigram_vectors(texts)]


def _a_string(texts: list[str]) -> str:
    return "not vectors"


def _query_of_other_length(texts: list[str]) -> list[list[float]]:
    return [[1.0, 0.0] if len(texts) == 1 else [1.0, 0.0, 0.0] for _ in texts]


def _not_numbers(texts: list[str]) -> list[Any]:
    return [["x", "y"] for _ in texts]


@pytest.mark.parametrize(
    ("embedder", "reason"),
    [
        (_raises, "raised ConnectionError"),
        (_one_short, "returned 4 vectors for 5 texts"),
        (_ragged, "returned a vector of 4 numbers, not 3"),
        (_nan, "returned NaN or infinite values"),
        (_a_string, "returned a string"),
        (_query_of_other_length, "returned a vector of 2 numbers, not 3"),
        (_not_numbers, "returned a vector that is not numbers"),
    ],
)
def test_a_broken_embedder_falls_back_to_bm25_with_one_warning(
    embedder: Any, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[int] = []

    def counted(texts: list[str]) -> Any:
        calls.append(len(texts))
        return embedder(texts)

    registry = _registry(counted)
    with caplog.at_level(logging.DEBUG, logger="toolkit.search"):
        assert _names(registry.search("refund the card payment", k=1)) == ["refund_payment"]
        assert registry.search(_TYPO) == []  # BM25 alone: nothing shares a word
        assert _names(registry.search("weather", k=1)) == ["get_weather_forecast"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert message.startswith("search.embedder_failed:") and reason in message
    assert "configure_search(embedder=...)" in message
    # not called again at each search: the tools once, the question once if they were fine
    assert calls == ([5, 1] if embedder is _query_of_other_length else [5])


def test_an_embedder_that_failed_is_tried_again_later(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def flaky(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        if len(calls) in (1, 3):  # the first batch of tools, then the first question
            raise TimeoutError("busy")
        return trigram_vectors(texts)

    monkeypatch.setattr(semantic, "_RETRY_S", 0.0)
    registry = _registry(flaky)
    assert registry.search(_TYPO) == []
    assert _names(registry.search("refund", k=1)) == ["refund_payment"]  # the question failed
    assert _names(registry.search(_TYPO, k=1)) == ["get_weather_forecast"]
    assert [len(texts) for texts in calls] == [len(_TOOLS), len(_TOOLS), 1, 1]


def test_a_retry_after_vectors_of_another_length_starts_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(semantic, "_RETRY_S", 0.0)
    embedders = iter([_ragged, trigram_vectors, trigram_vectors])
    registry = _registry(lambda texts: next(embedders)(texts))
    assert registry.search(_TYPO) == []  # the ragged batch is refused whole
    assert _names(registry.search(_TYPO, k=1)) == ["get_weather_forecast"]


def _many_tools() -> list[tuple[str, str]]:
    areas = ("crm", "billing", "hr", "cloud", "shop", "weather", "mail")
    verbs = ("list", "get", "archive", "export", "count", "create")
    things = ("record", "invoice", "forecast", "message", "ticket")
    return [
        (f"{a}_{v}_{t}", f"{v.capitalize()} a {t} of the {a} system, {a} {t}s.")
        for a in areas
        for v in verbs
        for t in things
    ]


def test_numpy_and_pure_python_rank_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    assert semantic._numpy() is numpy
    queries = ["wether forcast", "archiv the invoices", "mail mesages", "hr tiket count", "x"]
    tools = _many_tools()

    def rankings(numpy_used: bool) -> list[list[tuple[str, float]]]:
        index = ToolIndex(_registry(tools=tools)._tools, embedder=trigram_vectors)
        found = [[(h.tool.name, h.score) for h in index.search(q, k=len(tools))] for q in queries]
        assert isinstance(index._semantic._matrix, numpy.ndarray) is numpy_used  # type: ignore[union-attr]
        return found

    with_numpy = rankings(numpy_used=True)
    monkeypatch.setattr(semantic, "_USE_NUMPY", False)
    pure = rankings(numpy_used=False)
    assert [[n for n, _ in r] for r in pure] == [[n for n, _ in r] for r in with_numpy]
    for ours, theirs in zip(pure, with_numpy, strict=True):
        assert all(math.isclose(a[1], b[1], abs_tol=1e-9) for a, b in zip(ours, theirs))
    assert len(with_numpy[0]) == len(tools)  # every tool is ranked by meaning


def test_queries_go_through_embed_query_when_the_embedder_has_it() -> None:
    class Asymmetric(_Counting):
        def __init__(self) -> None:
            super().__init__()
            self.questions: list[str] = []

        def embed_query(self, text: str) -> list[float]:
            self.questions.append(text)
            return trigram_vectors([text])[0]

    embedder = Asymmetric()
    assert _names(_registry(embedder).search(_TYPO, k=1)) == ["get_weather_forecast"]
    assert embedder.questions == [_TYPO] and _TYPO not in embedder.texts


def test_decorated_functions_are_embedded_with_their_parameters() -> None:
    @mcp_tool
    def book_room(room_code: str) -> str:
        """Reserve a conference room.

        Args:
            room_code: Which room, such as B-201.
        """
        return room_code

    embedder = _Counting()
    registry = ToolRegistry()
    registry.register(book_room)
    registry.configure_search(embedder=embedder)
    registry.search("reserve")
    assert embedder.texts[0].startswith("book room: Reserve a conference room.")
    assert "Which room, such as B-201." in embedder.texts[0]


def test_an_unknown_fusion_is_refused() -> None:
    with pytest.raises(ValueError, match="use 'mix' or 'rrf'"):
        _registry().configure_search(embedder=trigram_vectors, fusion="max")  # type: ignore[arg-type]
