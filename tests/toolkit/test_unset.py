"""``UNSET`` and ``None`` are different values: ``timeout=None`` means no timeout."""

from __future__ import annotations

import time

import pytest

from toolkit import UNSET, CallOptions, ErrorCode, ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio


@mcp_tool
def nap(seconds: float) -> str:
    """Sleep a while.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "awake"


@mcp_tool(timeout=0.05)
def short_nap(seconds: float) -> str:
    """Sleep a while, with a tight timeout of its own.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "awake"


def _registry() -> ToolRegistry:
    registry = ToolRegistry(timeout=0.05)
    registry.register(nap)
    registry.register(short_nap)
    return registry


def test_options_leave_the_timeout_unset_by_default() -> None:
    assert CallOptions().timeout is UNSET
    assert not UNSET and repr(UNSET) == "UNSET"


@pytest.mark.parametrize("tool", ["nap", "short_nap"])
def test_an_unset_timeout_is_the_tools_or_the_registrys(tool: str) -> None:
    result = _registry().call_sync(tool, {"seconds": 0.5})
    assert result.code is ErrorCode.TIMEOUT


@pytest.mark.parametrize("tool", ["nap", "short_nap"])
def test_timeout_none_means_no_timeout(tool: str) -> None:
    registry = _registry()
    options = CallOptions(timeout=None)
    assert registry.call_sync(tool, {"seconds": 0.3}, options=options).content == "awake"


@pytest.mark.parametrize("tool", ["nap", "short_nap"])
async def test_timeout_none_means_no_timeout_async(tool: str) -> None:
    options = CallOptions(timeout=None)
    result = await _registry().call(tool, {"seconds": 0.3}, options=options)
    assert result.content == "awake"
