"""The frozen search evaluation keeps its promises: halves drawn per tool, answers that exist.

If one of these fails, the recall figures of ``bench/bench_search_heldout.py`` no longer mean
what ``docs/search.md`` says they mean.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from search_eval import catalog, heldout  # noqa: E402


@pytest.fixture(scope="module")
def bfcl() -> list[heldout.HalfQuestion]:
    return heldout.bfcl_questions()


@pytest.fixture(scope="module")
def project() -> list[heldout.HalfQuestion]:
    return heldout.project_questions()


def _check_halves(questions: list[heldout.HalfQuestion]) -> None:
    halves: dict[str, set[str]] = {}
    for q in questions:
        assert q.half in heldout.HALVES, q
        halves.setdefault(q.expected, set()).add(q.half)
    mixed = [name for name, seen in halves.items() if len(seen) > 1]
    assert not mixed, f"tools with questions in both halves: {mixed[:5]}"
    held = heldout.draw_halves(list(halves))
    assert {n for n, seen in halves.items() if "held-out" in seen} == held


def test_bfcl_halves_are_drawn_per_tool_with_the_fixed_seed(
    bfcl: list[heldout.HalfQuestion],
) -> None:
    _check_halves(bfcl)
    assert Counter(q.half for q in bfcl) == {"tune": 865, "held-out": 994}


def test_project_halves_are_drawn_per_tool_with_the_fixed_seed(
    project: list[heldout.HalfQuestion],
) -> None:
    _check_halves(project)
    assert len(project) == len(catalog.questions())


def test_every_expected_tool_is_in_its_catalog(
    bfcl: list[heldout.HalfQuestion], project: list[heldout.HalfQuestion]
) -> None:
    bfcl_names = {row["name"] for row in heldout.bfcl_specs()}
    assert len(bfcl_names) == 1096
    assert not {q.expected for q in bfcl} - bfcl_names
    project_names = {row["name"] for row in catalog.catalog_specs()}
    assert not {q.expected for q in project} - project_names


def test_the_frozen_project_questions_are_the_catalogs_questions(
    project: list[heldout.HalfQuestion],
) -> None:
    frozen = {(q.text, q.expected, q.kind) for q in project}
    assert frozen == {(q.text, q.expected, q.kind) for q in catalog.questions()}


def test_bfcl_tools_are_searchable_json_schema_tools() -> None:
    registry = heldout.bfcl_registry()
    assert len(registry) == 1096
    for tool in registry:
        assert tool.spec.input_schema.get("type") == "object", tool.name
