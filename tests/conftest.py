"""Shared fixtures: the anyio backend, and a clean example store for every test."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _fresh_store() -> None:
    from adapters.demo.warehouse.store import STORE

    STORE.reset()
