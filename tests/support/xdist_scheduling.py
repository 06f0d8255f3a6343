"""How ``pytest -n N --dist loadgroup`` shares the suite between workers.

xdist's own ``loadgroup`` sends every test without an ``xdist_group`` mark to whichever worker is
free, one test at a time, so a module-scoped fixture (a server, a subprocess) starts once per
worker that ran a test of its module. Here a test without a mark goes with the rest of its file,
as ``--dist loadfile`` sends it, and tests marked ``@pytest.mark.xdist_group("name")`` go to one
worker together whatever file they are in: the mark is for tests that share a costly
session-scoped resource (the PostgreSQL cluster) or state outside the process.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling


class FileOrGroupScheduling(LoadScopeScheduling):
    """One work unit per ``xdist_group`` name, and one per file for tests without a group."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):  # xdist appends "@group" to a grouped test
            return "@" + nodeid.rsplit("@", 1)[-1]
        return nodeid.split("::", 1)[0]
