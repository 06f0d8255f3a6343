"""Fixtures for the MCP server tests: in-process servers and uvicorn on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.support.serving import serving

__all__ = ["serving"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
