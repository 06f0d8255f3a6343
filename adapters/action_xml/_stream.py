"""Streaming an answer: the text streams as it arrives, the ACTION block is held until complete."""

from __future__ import annotations

import re

__all__ = ["TextGate"]

_OPEN = re.compile(r"<ACTION\s*>", re.IGNORECASE)
_FENCE_TAIL = re.compile(r"`{1,3}[A-Za-z]{0,20}\s*$")
_FENCE_BEFORE = re.compile(r"\s*```[A-Za-z]{0,20}\s*$")
#: Trailing whitespace held back at most (beyond it, a flood of spaces streams on).
_MAX_HELD_SPACE = 1024
#: Text already let through that is searched again for an ``<ACTION>`` cut by a chunk edge.
_LOOK_BACK = 16


class TextGate:
    """Lets through the text that is surely ``response_text`` and holds back the rest.

    Held back: leading and trailing whitespace, a tail that may grow into ``<ACTION>``, and a
    code fence that may open the block. Once the block starts nothing more passes.

    Rule: feeding costs time in proportion to the new text plus what is held back, which stays
    small (a partial tag, a fence, at most :data:`_MAX_HELD_SPACE` spaces): chunks are kept in
    a list, never re-joined per chunk, so a long answer in many small chunks streams in linear
    time.
    """

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._joined = ""
        self._held = ""
        self._recent = ""
        self.sent = 0  # where the held text starts in the answer
        self.closed = False

    @property
    def buffer(self) -> str:
        """The whole answer received so far."""
        if self._chunks:
            self._joined += "".join(self._chunks)
            self._chunks.clear()
        return self._joined

    def feed(self, text: str) -> str:
        """Add ``text``; return what may be shown now."""
        self._chunks.append(text)
        if self.closed:
            return ""
        held = self._held + text
        if not self._recent:  # nothing shown yet: leading whitespace is not shown
            stripped = held.lstrip()
            self.sent += len(held) - len(stripped)
            held = stripped
        window = self._recent + held
        opened = _OPEN.search(window)
        if opened is not None:
            self.closed = True
            before = held[: max(opened.start() - len(self._recent), 0)]
            end = len(_FENCE_BEFORE.sub("", before).rstrip())
        else:
            end = self._safe_end(held)
        return self._take(held, end)

    def finish(self) -> str:
        """The text still held that belongs to the answer (none once a block started)."""
        if self.closed:
            return ""
        return self._take(self._held, len(self._held.rstrip()))

    @staticmethod
    def _safe_end(held: str) -> int:
        end = len(held.rstrip())
        if len(held) - end > _MAX_HELD_SPACE:
            return len(held) - _MAX_HELD_SPACE
        lt = held.rfind("<", 0, end)
        if lt >= 0 and "<action>".startswith(held[lt:end].lower()):
            end = lt
        fence = _FENCE_TAIL.search(held, 0, end)
        if fence is not None:
            end = fence.start()
        return len(held[:end].rstrip())

    def _take(self, held: str, end: int) -> str:
        out = held[:end] if end > 0 else ""
        self._held = held[len(out) :]
        self.sent += len(out)
        if out:
            self._recent = (self._recent + out)[-_LOOK_BACK:]
        return out
