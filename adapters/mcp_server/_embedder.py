"""``--search-embedder module:attribute``: rank ``--tool-search`` by meaning as well as words.

The attribute is an embedder (a callable from a list of texts to one vector per text, such as a
sentence-transformers model's ``encode``) or a zero-argument factory that returns one, called
once per process (each worker loads its own model).
"""

from __future__ import annotations

import inspect
from typing import Any

from toolkit.errors import RegistrationError
from toolkit.search import Embedder
from toolkit.toolsets.loader import load_target

__all__ = ["load_embedder"]

_WHAT = (
    "give module:attribute naming a function that takes a list of texts and returns one vector "
    "per text (e.g. myapp.search:embed), or a function without arguments that returns one"
)


def load_embedder(spec: str, *, build: bool = True) -> Embedder:
    """The embedder ``spec`` names, or the one its factory builds (``build=False``: only check
    that it imports and is callable, without building a model).

    Raises:
        ValueError: ``spec`` cannot be imported, is not callable, or its factory fails or
            returns something that is not callable (the message says what to give).
    """
    if ":" not in spec:
        raise ValueError(f"--search-embedder {spec!r} names no attribute: {_WHAT}.")
    try:
        value: Any = load_target(spec)
    except RegistrationError as exc:
        raise ValueError(f"--search-embedder {spec!r}: {exc}") from None
    if not callable(value):
        raise ValueError(f"--search-embedder {spec!r} is a {type(value).__name__}: {_WHAT}.")
    if not build or not _is_factory(value):
        return value  # type: ignore[no-any-return]
    try:
        embedder = value()
    except Exception as exc:
        raise ValueError(
            f"--search-embedder {spec!r}: building the embedder failed: {type(exc).__name__}: {exc}"
        ) from exc
    if not callable(embedder):
        raise ValueError(
            f"--search-embedder {spec!r} returned a {type(embedder).__name__}: {_WHAT}."
        )
    return embedder  # type: ignore[no-any-return]


def _is_factory(value: Any) -> bool:
    """A callable that needs no argument builds the embedder; an embedder takes the texts."""
    try:
        parameters = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: treat it as the embedder
        return False
    return not any(
        p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in parameters
    )
