"""A LangChain ``Embeddings`` model as the embedder of tool search.

``registry.configure_search(embedder=embedder(OpenAIEmbeddings()))`` makes ``registry.search``
rank by meaning too: tools go through ``embed_documents`` (once each), questions through
``embed_query``. Any LangChain embeddings class works (OpenAI, Hugging Face, Ollama, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from toolkit.search import Embedder

__all__ = ["LangChainEmbedder", "embedder"]


class LangChainEmbedder:
    """An :class:`~toolkit.search.Embedder` that calls a LangChain ``Embeddings`` model.

    Args:
        embeddings: The model; tools go to its ``embed_documents``, questions to its
            ``embed_query``.
    """

    def __init__(self, embeddings: Embeddings) -> None:
        self.embeddings = embeddings

    def __call__(self, texts: list[str], /) -> Sequence[Sequence[float]]:
        """Embed tool texts with ``embed_documents``."""
        return self.embeddings.embed_documents(texts)

    def embed_query(self, text: str) -> Sequence[float]:
        """Embed a question with ``embed_query`` (some models embed questions differently)."""
        return self.embeddings.embed_query(text)

    def __repr__(self) -> str:
        return f"LangChainEmbedder({type(self.embeddings).__name__})"


def embedder(embeddings: Embeddings) -> Embedder:
    """Tool search's embedder from a LangChain ``Embeddings`` model.

    Example:
        >>> from langchain_openai import OpenAIEmbeddings  # doctest: +SKIP
        >>> registry.configure_search(embedder=embedder(OpenAIEmbeddings()))  # doctest: +SKIP

    A plain function works as well, without this wrapper: anything that maps a list of texts
    to one vector per text, such as ``SentenceTransformer(...).encode``.
    """
    if not isinstance(embeddings, Embeddings):
        raise TypeError(
            f"embedder() takes a LangChain Embeddings object, not {type(embeddings).__name__}; "
            "pass a plain function from a list of texts to vectors straight to "
            "configure_search(embedder=...)"
        )
    return LangChainEmbedder(embeddings)
