"""adapters.langchain.embedder: a LangChain Embeddings model ranks tool search by meaning."""

from __future__ import annotations

import pytest
from langchain_core.embeddings import Embeddings

from adapters.langchain import LangChainEmbedder, embedder
from adapters.langgraph import ToolSearch, build_agent
from adapters.testing import ScriptedChatModel
from tests.support.trigram_embedder import trigram_vector
from toolkit import ToolRegistry, mcp_tool


class TrigramEmbeddings(Embeddings):
    """A real (if small) embeddings model: hashed character trigrams, so typos stay close."""

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return [trigram_vector(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return trigram_vector(text)


def _tool(name: str, description: str) -> object:
    def run(city: str) -> str:
        return f"{name}({city})"

    return mcp_tool(name=name, description=description)(run)


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    for name, description in [
        ("get_weather_forecast", "Weather forecast for a city: temperature, rain and wind."),
        ("convert_currency", "Convert an amount of money between two currencies."),
        ("refund_payment", "Give money back for a card payment."),
        ("translate_text", "Translate text into another language."),
    ]:
        registry.register(_tool(name, description))  # type: ignore[arg-type]
    return registry


def test_an_agent_is_offered_the_tool_a_misspelt_question_means() -> None:
    question = "wether forcast for lisbon tomorow"  # no word in common with any tool
    plain = ScriptedChatModel(turns=["?"])
    build_agent(plain, _registry(), tool_search=ToolSearch(k=1)).invoke(
        {"messages": [("user", question)]}
    )
    assert plain.calls[0].tools == ["search_tools"]  # BM25 alone finds nothing

    model = TrigramEmbeddings()
    registry = _registry()
    registry.configure_search(embedder=embedder(model))
    hybrid = ScriptedChatModel(turns=["Sunny."])
    build_agent(hybrid, registry, tool_search=ToolSearch(k=1)).invoke(
        {"messages": [("user", question)]}
    )
    assert hybrid.calls[0].tools == ["get_weather_forecast", "search_tools"]
    assert len(model.documents) == 4 and model.queries and question in model.queries[0]


def test_the_wrapper_sends_tools_to_documents_and_questions_to_query() -> None:
    model = TrigramEmbeddings()
    wrapped = embedder(model)
    assert isinstance(wrapped, LangChainEmbedder) and repr(wrapped).endswith("(TrigramEmbeddings)")
    assert wrapped(["a b", "c"]) == [trigram_vector("a b"), trigram_vector("c")]
    assert wrapped.embed_query("q") == trigram_vector("q")
    assert model.documents == ["a b", "c"] and model.queries == ["q"]


def test_a_plain_function_is_pointed_to_configure_search() -> None:
    with pytest.raises(TypeError, match=r"straight to\s+configure_search\(embedder=\.\.\.\)"):
        embedder(lambda texts: [[1.0] for _ in texts])  # type: ignore[arg-type]
