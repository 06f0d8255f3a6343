"""Domain types of the warehouse example."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class BinStatus(StrEnum):
    """Whether a bin can take or give stock."""

    ACTIVE = "active"
    LOCKED = "locked"


class Bin(BaseModel):
    """A storage location in a warehouse."""

    code: str = Field(description="Bin code, e.g. 'A-01-03'.")
    warehouse_id: int
    zone: str
    status: BinStatus = BinStatus.ACTIVE
    capacity: int = Field(ge=0, description="How many units fit.")


class StockLine(BaseModel):
    """How many units of one SKU lie in one bin."""

    sku: str
    bin_code: str
    quantity: int = Field(ge=0)


class Move(BaseModel):
    """A completed stock move."""

    sku: str
    from_bin: str
    to_bin: str
    quantity: int
    moved_by: str
