"""An in-memory store with seed data; stands in for the team's database."""

from __future__ import annotations

import threading

from adapters.demo.warehouse.models import Bin, BinStatus, StockLine

TENANTS = {"acme": [1, 2], "globex": [3]}

_SEED_BINS = [
    Bin(code="A-01-01", warehouse_id=1, zone="A", capacity=100),
    Bin(code="A-01-02", warehouse_id=1, zone="A", capacity=100),
    Bin(code="A-02-01", warehouse_id=1, zone="A", status=BinStatus.LOCKED, capacity=50),
    Bin(code="B-01-01", warehouse_id=2, zone="B", capacity=200),
    Bin(code="C-01-01", warehouse_id=3, zone="C", capacity=80),
]
_SEED_STOCK = [
    StockLine(sku="WIDGET-1", bin_code="A-01-01", quantity=40),
    StockLine(sku="WIDGET-1", bin_code="B-01-01", quantity=10),
    StockLine(sku="GADGET-7", bin_code="A-01-02", quantity=5),
    StockLine(sku="GIZMO-3", bin_code="C-01-01", quantity=12),
]


class Store:
    """Bins and stock lines behind one lock (tools may run in threads at once)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.reset()

    def reset(self) -> None:
        """Back to the seed data."""
        with self.lock:
            self.bins = {b.code: b.model_copy() for b in _SEED_BINS}
            self.stock = [s.model_copy() for s in _SEED_STOCK]

    def bin(self, code: str) -> Bin | None:
        """The bin with ``code``, if any."""
        return self.bins.get(code)

    def quantity(self, sku: str, bin_code: str) -> int:
        """Units of ``sku`` in ``bin_code``."""
        return sum(s.quantity for s in self.stock if s.sku == sku and s.bin_code == bin_code)

    def add(self, sku: str, bin_code: str, delta: int) -> None:
        """Add (or with a negative delta, take) units."""
        for line in self.stock:
            if line.sku == sku and line.bin_code == bin_code:
                line.quantity += delta
                return
        self.stock.append(StockLine(sku=sku, bin_code=bin_code, quantity=delta))


STORE = Store()
