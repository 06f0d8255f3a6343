"""HttpToolset as a Toolset, against the orders service on 127.0.0.1."""

from __future__ import annotations

import pytest

from adapters.http import HttpToolset
from tests.support.orders_service import Recorder, example_config
from toolkit import ToolRegistry, Toolset

pytestmark = pytest.mark.anyio


async def test_pinned_and_prefixed_http_tools_send_the_pinned_values(
    base: str, recorder: Recorder
) -> None:
    registry = ToolRegistry()
    async with HttpToolset.from_config(example_config(base)) as toolset:
        assert isinstance(toolset, Toolset)
        pinned = toolset.pinned({"get_order": {"userId": "u1", "Authorization": "Bearer k"}})
        await registry.add_toolset(pinned.prefixed("shop"))
        assert registry.names() == ["shop_get_order"]
        assert "userId" not in registry.get("shop_get_order").spec.parameters
        result = await registry.call("shop_get_order", {"orderId": "o7"})
    assert not result.is_error, result.content
    assert recorder.last.raw_path == "/users/u1/orders/o7"
    assert recorder.last.headers["authorization"] == "Bearer k"


def test_register_into_and_add_toolset_give_the_same_tools(base: str) -> None:
    with HttpToolset.from_config(example_config(base)) as toolset:
        old, new = ToolRegistry(), ToolRegistry()
        toolset.register_into(old, namespace="n")
        new.add_toolset_sync(toolset.prefixed("n"))
        assert old.specs() == new.specs()
