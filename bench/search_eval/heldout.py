"""Frozen catalogs and questions in two halves: one to tune the ranking on, one to report.

Two catalogs:

* ``project``: the catalog of :mod:`.catalog` (2,182 tools) with its 567 questions, frozen in
  ``bench/data/project_questions.json``. Its generated questions shaped the ranking before the
  halves were drawn, so even its held-out half flatters a little;
* ``bfcl``: 1,096 tools and 1,859 questions of the Berkeley Function Calling Leaderboard
  (``bench/data/bfcl/``), which nobody here wrote and the ranking was not tuned on before the
  halves were drawn.

Each question belongs to the ``tune`` or the ``held-out`` half, drawn per expected tool with
seed 41 (no held-out tool has a question in the tuning half). Only the tuning half may be
looked at while tuning; the held-out half is the figure to report.

``python -m bench.search_eval.heldout --freeze`` rewrites ``project_questions.json`` from
:mod:`.catalog` (done once, before tuning).
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit import ToolRegistry

from . import catalog

DATA = Path(__file__).resolve().parents[1] / "data"
PROJECT_QUESTIONS = DATA / "project_questions.json"
SEED = 41
HALVES = ("tune", "held-out")


@dataclass(frozen=True)
class HalfQuestion:
    text: str
    expected: str
    kind: str
    half: str  # "tune" or "held-out"


def draw_halves(names: list[str]) -> set[str]:
    """The tools whose questions are held out: half of ``names``, drawn with seed 41."""
    order = sorted(set(names))
    random.Random(SEED).shuffle(order)
    return set(order[: len(order) // 2])


def _read(path: Path) -> list[HalfQuestion]:
    return [HalfQuestion(*row) for row in json.loads(path.read_text())]


def project_questions() -> list[HalfQuestion]:
    """The project catalog's questions, frozen, with their halves."""
    return _read(PROJECT_QUESTIONS)


def bfcl_questions() -> list[HalfQuestion]:
    """BFCL's questions with their halves."""
    return _read(DATA / "bfcl" / "questions.json")


def bfcl_specs() -> list[dict[str, Any]]:
    """BFCL's tools as plain spec data."""
    rows: list[dict[str, Any]] = json.loads((DATA / "bfcl" / "tools.json").read_text())
    return rows


def bfcl_registry() -> ToolRegistry:
    """BFCL's catalog as a registry."""
    reg = ToolRegistry()
    for row in bfcl_specs():
        reg.add(catalog.to_tool(row))
    return reg


def freeze_project() -> None:
    """Write ``project_questions.json`` from the project catalog's questions."""
    found = catalog.questions()
    held = draw_halves([q.expected for q in found])
    rows = [[q.text, q.expected, q.kind, HALVES[q.expected in held]] for q in found]
    PROJECT_QUESTIONS.write_text(
        "[\n" + ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n"
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--freeze"]:
        freeze_project()
