"""A readable summary of an agent run: the answer, the tool-call log, iterations and tokens."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

from adapters.langgraph.state import ToolCallEntry

# Inline, so JupyterLab (whose CSS right-aligns table cells) and untrusted notebooks
# show the table as meant.
_CELL = "border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top"

__all__ = ["RunSummary"]


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class RunSummary:
    """What happened in one agent run, for people (notebooks, logs, the terminal).

    Build it from the final state: ``RunSummary.from_state(graph.invoke(...))``.

    Attributes:
        answer: The text of the last assistant message.
        iterations: Model calls of the run's user turn (one tool call, then an answer: 2).
        usage: Summed token usage.
        tool_calls: The tool-call log.
    """

    answer: str
    iterations: int
    usage: dict[str, int] = field(default_factory=dict)
    tool_calls: list[ToolCallEntry] = field(default_factory=list)

    @classmethod
    def from_state(cls, state: Any) -> RunSummary:
        """Summarize an :class:`AgentState` (a dict, or a ``StateSnapshot``'s ``values``)."""
        values = state if isinstance(state, Mapping) else state.values
        answers = [m for m in values.get("messages", []) if isinstance(m, AIMessage)]
        return cls(
            answer=answers[-1].text if answers else "",
            iterations=values.get("iterations", 0),
            usage=dict(values.get("usage", {})),
            tool_calls=list(values.get("tool_calls", [])),
        )

    @property
    def errors(self) -> list[ToolCallEntry]:
        """The failed calls."""
        return [c for c in self.tool_calls if c["is_error"]]

    def _rows(self) -> list[tuple[str, ...]]:
        return [
            (
                str(c["iteration"]),
                c["tool"],
                _short(c["arguments"], 40),
                c["code"] or "ok",
                c["decision"],
                f"{c['duration_ms']:.1f}",
                _short(c["result"]),
            )
            for c in self.tool_calls
        ]

    def _headline(self) -> str:
        tokens = self.usage.get("total_tokens", 0)
        # A model that reports no usage (a scripted one, some local servers) did not use 0.
        used = _count(tokens, "token") if tokens else "tokens: none reported"
        return (
            f"{_count(len(self.tool_calls), 'tool call')} in {_count(self.iterations, 'turn')}, "
            f"{used}"
        )

    _HEAD = ("turn", "tool", "arguments", "outcome", "decision", "ms", "result")

    def __repr__(self) -> str:
        failed = len(self.errors)
        return f"RunSummary({self._headline()}, {failed} failed, answer={_short(self.answer)!r})"

    def __str__(self) -> str:
        rows = [self._HEAD, *self._rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(len(self._HEAD))]
        table = "\n".join(
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows
        )
        return f"{self._headline()}\n{table}\nanswer: {self.answer}"

    def _repr_html_(self) -> str:
        cells = "".join(
            "<tr>" + "".join(f"<td style='{_CELL}'>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self._rows()
        )
        head = "".join(f"<th style='{_CELL}'>{h}</th>" for h in self._HEAD)
        return (
            f"<p style='text-align:left'>{html.escape(self._headline())}</p>"
            f"<table style='border-collapse:collapse'><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table>"
            f"<p style='text-align:left'><b>Answer:</b> {html.escape(self.answer)}</p>"
        )
