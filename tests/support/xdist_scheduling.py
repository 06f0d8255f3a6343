"""How ``pytest -n N --dist loadgroup`` (``make test``) shares the suite between workers.

xdist's own ``loadgroup`` sends every test without an ``xdist_group`` mark to whichever worker is
free, one test at a time, so a module-scoped fixture (a server, a subprocess) would start once
per worker that ran a test of its module. Here:

* a test without a mark goes with the rest of its file, as ``--dist loadfile`` sends it;
* tests marked ``@pytest.mark.xdist_group("name")`` go to one worker together, whatever file they
  are in (for tests that share a costly session-scoped resource or state outside the process);
* each test marked ``@pytest.mark.xdist_alone`` is a unit of its own (long tests that share
  nothing, such as one notebook or one benchmark run each: a file of them then spreads over
  every worker instead of keeping one busy to the end).

Marked units go out first and then files, each the largest first, so long ones do not start last.
"""

from __future__ import annotations

from typing import Any

import pytest

_ALONE = "xdist-alone-"


def mark_alone_tests(items: list[pytest.Item]) -> None:
    """Give each test marked ``xdist_alone`` a group of its own (run before xdist reads groups)."""
    if not items or not items[0].config.pluginmanager.hasplugin("xdist"):
        return
    for index, item in enumerate(items):
        if item.get_closest_marker("xdist_alone") is not None:
            item.add_marker(pytest.mark.xdist_group(f"{_ALONE}{index}"))


def _group(nodeid: str) -> str | None:
    """The group xdist appended to ``nodeid`` (``...::test[param]@group``), if any."""
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return nodeid.rsplit("@", 1)[-1]
    return None


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The scheduler described above (imports pytest-xdist, so only called under it)."""
    from xdist.scheduler import LoadScopeScheduling

    class FileOrGroupScheduling(LoadScopeScheduling):
        """One work unit per ``xdist_group`` name, and one per file for tests without a group."""

        def __init__(self, config: pytest.Config, log: Any = None) -> None:
            super().__init__(config, log)
            # The order is ours (see schedule); xdist's reorder would sort units by size alone.
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            group = _group(nodeid)
            return "@" + group if group is not None else nodeid.split("::", 1)[0]

        def schedule(self) -> None:
            if self.collection is None and self.collection_is_completed:
                for node, ids in list(self.registered_collections.items()):
                    self.registered_collections[node] = self._ordered(ids)
            super().schedule()

        def _ordered(self, ids: list[str]) -> list[str]:
            """Grouped units first, then files; each by number of tests, largest first; stable."""
            sizes: dict[str, int] = {}
            for nodeid in ids:
                scope = self._split_scope(nodeid)
                sizes[scope] = sizes.get(scope, 0) + 1

            def rank(nodeid: str) -> tuple[int, int]:
                scope = self._split_scope(nodeid)
                return (0 if scope.startswith("@") else 1, -sizes[scope])

            return sorted(ids, key=rank)

    return FileOrGroupScheduling(config, log)
