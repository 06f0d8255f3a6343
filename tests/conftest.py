"""Shared fixtures: the anyio backend, a clean example store for every test, and PostgreSQL.

Also how ``pytest -n N --dist loadgroup`` (``make test``) groups tests: see
tests/support/xdist_scheduling.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.postgres import PostgresCluster, PostgresUnavailable, start_cluster
from tests.support.xdist_scheduling import make_scheduler, mark_alone_tests


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _fresh_store() -> None:
    from adapters.demo.warehouse.store import STORE

    STORE.reset()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresCluster]:
    """One PostgreSQL cluster on a free 127.0.0.1 port, stopped by its pid at the end.

    Without a server on the machine the tests using it skip, naming the install command
    (``bash tests/support/postgres.sh``); with ``TOOLKIT_REQUIRE_POSTGRES=1`` (CI) they fail.
    """
    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        if os.environ.get("TOOLKIT_REQUIRE_POSTGRES") == "1":
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres: PostgresCluster) -> str:
    """The URL of a new, empty database on the session's cluster (password included)."""
    return postgres.create_database()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each ``xdist_alone`` test becomes a group of its own, before xdist reads the groups."""
    mark_alone_tests(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """With ``--dist loadgroup``: a file's tests stay together, and so does each marked group."""
    if config.getoption("dist") != "loadgroup":
        return None
    return make_scheduler(config, log)
