"""Streaming an answer: the text streams as it arrives, the ACTION block is held until complete."""

from __future__ import annotations

import re

__all__ = ["TextGate"]

_OPEN = re.compile(r"<ACTION\s*>", re.IGNORECASE)
_FENCE_TAIL = re.compile(r"`{1,3}[A-Za-z]*\s*$")
_FENCE_BEFORE = re.compile(r"\s*```[A-Za-z]*\s*$")


class TextGate:
    """Lets through the text that is surely ``response_text`` and holds back the rest.

    Held back: leading and trailing whitespace, a tail that may grow into ``<ACTION>``, and a
    code fence that may open the block. Once the block starts nothing more passes.
    """

    def __init__(self) -> None:
        self.buffer = ""
        self.sent = 0
        self.closed = False

    def feed(self, text: str) -> str:
        """Add ``text``; return what may be shown now."""
        self.buffer += text
        if self.closed:
            return ""
        buf = self.buffer
        if self.sent == 0:
            self.sent = len(buf) - len(buf.lstrip())
        opened = _OPEN.search(buf, max(self.sent - 8, 0))
        if opened is not None:
            self.closed = True
            end = len(_FENCE_BEFORE.sub("", buf[: opened.start()]).rstrip())
        else:
            end = self._safe_end(buf)
        return self._take(end)

    def finish(self) -> str:
        """The text still held that belongs to the answer (none once a block started)."""
        if self.closed:
            return ""
        return self._take(len(self.buffer.rstrip()))

    def _safe_end(self, buf: str) -> int:
        end = len(buf.rstrip())
        lt = buf.rfind("<", self.sent, end)
        if lt >= 0 and "<action>".startswith(buf[lt:end].lower()):
            end = lt
        fence = _FENCE_TAIL.search(buf, self.sent, end)
        if fence is not None:
            end = fence.start()
        return len(buf[:end].rstrip())

    def _take(self, end: int) -> str:
        if end <= self.sent:
            return ""
        out = self.buffer[self.sent : end]
        self.sent = end
        return out
