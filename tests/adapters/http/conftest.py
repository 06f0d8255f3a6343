"""Fixtures for HTTP tool tests: the orders service on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.orders_service import Recorder, serving_orders


@pytest.fixture(scope="module")
def orders() -> Iterator[tuple[str, Recorder]]:
    with serving_orders() as served:
        yield served


@pytest.fixture
def base(orders: tuple[str, Recorder]) -> str:
    return orders[0]


@pytest.fixture
def recorder(orders: tuple[str, Recorder]) -> Recorder:
    orders[1].requests.clear()
    return orders[1]
