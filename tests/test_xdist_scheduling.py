"""``make test``'s scheduler: a file stays on one worker, a group too, long units go out first."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.xdist_scheduling import make_scheduler, mark_alone_tests

COLLECTED = [
    "tests/a/test_small.py::test_one",
    "tests/a/test_big.py::test_one",
    "tests/a/test_big.py::test_two[x@y]",  # an "@" inside a parameter is not a group
    "tests/a/test_big.py::test_three",
    "tests/b/test_db.py::test_pg@postgres",
    "tests/c/test_nb.py::test_run[01]@xdist-alone-6",
    "tests/c/test_nb.py::test_run[02]@xdist-alone-7",
    "tests/d/test_db2.py::test_pg@postgres",
]


def _config() -> Any:
    values = {"tx": ["2*popen"]}
    option = SimpleNamespace(loadscopereorder=True)
    return SimpleNamespace(option=option, getvalue=values.__getitem__)


def test_files_groups_and_alone_tests_are_the_units() -> None:
    scheduler = make_scheduler(_config(), None)
    scopes = {nodeid: scheduler._split_scope(nodeid) for nodeid in COLLECTED}
    assert scopes == {
        "tests/a/test_small.py::test_one": "tests/a/test_small.py",
        "tests/a/test_big.py::test_one": "tests/a/test_big.py",
        "tests/a/test_big.py::test_two[x@y]": "tests/a/test_big.py",
        "tests/a/test_big.py::test_three": "tests/a/test_big.py",
        "tests/b/test_db.py::test_pg@postgres": "@postgres",
        "tests/c/test_nb.py::test_run[01]@xdist-alone-6": "@xdist-alone-6",
        "tests/c/test_nb.py::test_run[02]@xdist-alone-7": "@xdist-alone-7",
        "tests/d/test_db2.py::test_pg@postgres": "@postgres",
    }


def test_grouped_units_go_first_then_files_each_largest_first() -> None:
    config = _config()
    scheduler = make_scheduler(config, None)
    assert config.option.loadscopereorder is False  # xdist would sort by size alone
    assert scheduler._ordered(COLLECTED) == [
        "tests/b/test_db.py::test_pg@postgres",
        "tests/d/test_db2.py::test_pg@postgres",
        "tests/c/test_nb.py::test_run[01]@xdist-alone-6",
        "tests/c/test_nb.py::test_run[02]@xdist-alone-7",
        "tests/a/test_big.py::test_one",
        "tests/a/test_big.py::test_two[x@y]",
        "tests/a/test_big.py::test_three",
        "tests/a/test_small.py::test_one",
    ]


class _Item:
    """What ``mark_alone_tests`` reads and writes of a collected test."""

    def __init__(self, alone: bool, *, xdist: bool = True) -> None:
        self.alone, self.added = alone, []
        self.config = SimpleNamespace(pluginmanager=SimpleNamespace(hasplugin=lambda _: xdist))

    def get_closest_marker(self, name: str) -> object | None:
        return pytest.mark.xdist_alone.mark if self.alone and name == "xdist_alone" else None

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.added.append((marker.name, marker.args))


def test_each_alone_test_gets_a_group_of_its_own() -> None:
    items = [_Item(True), _Item(False), _Item(True)]
    mark_alone_tests(items)  # type: ignore[arg-type]
    assert [item.added for item in items] == [
        [("xdist_group", ("xdist-alone-0",))],
        [],
        [("xdist_group", ("xdist-alone-2",))],
    ]
    without_xdist = [_Item(True, xdist=False)]
    mark_alone_tests(without_xdist)  # type: ignore[arg-type]
    assert without_xdist[0].added == []
