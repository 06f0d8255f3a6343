"""A small real embedder for tests: character-trigram counts hashed into a fixed-size vector.

Texts that share spellings (a typo, a word's other form) get close vectors, unlike a fake
embedding's random ones, so a test can show that search finds by closeness, not by luck.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable

DIMENSIONS = 512
_WORD = re.compile(r"[a-z0-9]+")


def trigram_vector(text: str) -> list[float]:
    """Counts of the text's character trigrams (each word padded with spaces), hashed."""
    vector = [0.0] * DIMENSIONS
    for word in _WORD.findall(text.lower()):
        padded = f" {word} "
        for i in range(len(padded) - 2):
            vector[zlib.crc32(padded[i : i + 3].encode()) % DIMENSIONS] += 1.0
    return vector


def trigram_vectors(texts: list[str]) -> list[list[float]]:
    """One trigram vector per text: an ``Embedder``."""
    return [trigram_vector(text) for text in texts]


def build() -> Callable[[list[str]], list[list[float]]]:
    """A factory of the embedder, as ``--search-embedder`` accepts one (a model to load)."""
    return trigram_vectors
