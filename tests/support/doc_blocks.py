"""The code blocks of the README and the guides in docs/, as a reader meets them.

A Python block runs as its own program unless its first line is ``# continues ...``: then it
joins the program of the block before it in the same file (the prose tells the reader so). A
block right after an HTML comment ``<!-- needs: NAME -->`` needs a server the reader brings
(``NAME`` says which) and is checked apart.

A printed result is shown as a comment beside the ``print`` (``print(x)  # 3``) or as the comment
lines right under it; a comment line ``...`` stands for any number of output lines, and ``...``
inside a line for any text (a correlation id, say).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?:<!--\s*needs:\s*([\w-]+)\s*-->\s*\n)?```([\w-]*)\n(.*?)```", re.DOTALL)
ELLIPSIS = "..."


@dataclass(frozen=True)
class Block:
    """One fenced block of one document."""

    doc: str
    lang: str
    body: str
    needs: str | None


@dataclass
class Program:
    """Python blocks a reader runs as one program."""

    doc: str
    index: int
    source: str
    needs: str | None = None
    parts: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.doc}#{self.index}"


@dataclass(frozen=True)
class Expectation:
    """What the prints on lines ``start``..``end`` of a program show they print."""

    start: int
    end: int
    lines: tuple[str, ...]

    def matches(self, output: str) -> bool:
        """Whether ``output`` is what the comment shows (``...`` lines stand for any lines)."""
        actual = [line.rstrip() for line in output.rstrip("\n").split("\n")]
        pattern = "".join(
            r"(?:[^\n]*\n)*?"
            if line == ELLIPSIS
            else re.escape(line).replace(re.escape(ELLIPSIS), r"[^\n]*") + r"\n"
            for line in self.lines
        )
        return re.fullmatch(pattern, "\n".join(actual) + "\n") is not None


def blocks() -> list[Block]:
    """Every fenced block of every document, in order."""
    found: list[Block] = []
    for path in DOC_FILES:
        text = path.read_text()
        for needs, lang, body in FENCE.findall(text):
            found.append(Block(path.relative_to(ROOT).as_posix(), lang, body, needs or None))
    return found


def programs() -> list[Program]:
    """The Python blocks grouped into programs, per document."""
    found: list[Program] = []
    counts: dict[str, int] = {}
    for block in blocks():
        if block.lang != "python":
            continue
        joins = block.body.lstrip().startswith("# continues")
        if joins and found and found[-1].doc == block.doc:
            found[-1].source += "\n\n" + block.body
            found[-1].needs = found[-1].needs or block.needs
            continue
        counts[block.doc] = counts.get(block.doc, 0) + 1
        found.append(Program(block.doc, counts[block.doc], block.body, block.needs))
    return found


def _comment(text: str) -> str:
    return text[1:].strip()


def expectations(source: str) -> list[Expectation]:
    """The printed results a program's comments show, one per ``print`` call that has one."""
    lines = source.splitlines()
    beside: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row = token.start[0]
            if lines[row - 1][: token.start[1]].strip():
                beside[row] = _comment(token.string)
    shown: list[Expectation] = []
    for node in ast.walk(ast.parse(source)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "print"
        ):
            continue
        end = node.end_lineno or node.lineno
        expected = [beside[end]] if end in beside else []
        row = end
        while row < len(lines) and lines[row].strip().startswith("#"):
            expected.append(_comment(lines[row].strip()))
            row += 1
        if expected:
            shown.append(Expectation(node.lineno, end, tuple(expected)))
    return sorted(shown, key=lambda e: e.start)
