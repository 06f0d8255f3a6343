"""build_agent takes a list of anything the core's type table accepts: functions, modules,
objects, tools, registries and toolsets (an HTTP toolset against the orders service on
127.0.0.1), each through ``toolkit.as_toolset``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from adapters.http import HttpToolset
from adapters.langgraph import as_registry, build_agent
from adapters.testing import ScriptedChatModel
from tests.support.orders_service import Recorder, example_config, serving_orders
from tests.toolkit import tools_for_tests
from toolkit import FunctionTool, RegistrationError, ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio


def shout(text: str) -> str:
    """Say it loudly.

    Args:
        text: What to say.
    """
    return text.upper()


@mcp_tool
def count_bins(zone: str) -> int:
    """How many bins a zone has.

    Args:
        zone: The zone letter.
    """
    return {"A": 4}.get(zone, 0)


@pytest.fixture(scope="module")
def orders() -> Iterator[tuple[str, Recorder]]:
    with serving_orders() as served:
        yield served


@pytest.fixture
def http_file(orders: tuple[str, Recorder], tmp_path: Path) -> Path:
    path = tmp_path / "http.json"
    path.write_text(json.dumps(example_config(orders[0])))
    return path


async def test_one_agent_from_functions_a_module_a_toolset_a_registry_and_a_tool(
    http_file: Path, orders: tuple[str, Recorder]
) -> None:
    some_registry = ToolRegistry()
    some_registry.register(count_bins)
    order = {"userId": "u7", "orderId": "o1", "Authorization": "t"}
    model = ScriptedChatModel(
        turns=[
            {
                "tool_calls": [
                    {"name": "shout", "args": {"text": "hi"}},
                    {"name": "add", "args": {"a": 2, "b": 3}},
                    {"name": "get_order", "args": order},
                    {"name": "count_bins", "args": {"zone": "A"}},
                    {"name": "add_one", "args": {"a": 1}},
                ]
            },
            "Done.",
        ]
    )
    a_tool = FunctionTool(tools_for_tests.add).renamed("add_one")
    async with HttpToolset.from_file(http_file) as http_tools:
        agent = build_agent(
            model, [shout, tools_for_tests, http_tools, some_registry, a_tool], max_iterations=2
        )
        state = await agent.ainvoke({"messages": [("user", "do it all")]})
    answers = {m.name: str(m.content) for m in state["messages"] if isinstance(m, ToolMessage)}
    assert answers["shout"] == "HI"
    assert answers["add"] == "5"
    assert answers["get_order"].startswith("Order ID: o1\nStatus: shipped")
    assert answers["count_bins"] == "4"
    assert answers["add_one"] == "2"  # b defaults to 1
    assert orders[1].last.raw_path == "/users/u7/orders/o1"


def test_a_registry_item_stays_current_and_a_registry_alone_is_used_as_it_is() -> None:
    source = ToolRegistry()
    source.register(shout)
    registry = as_registry([source])
    source.register(count_bins)
    assert registry.names() == ["shout", "count_bins"]
    assert as_registry(source) is source


def test_a_name_given_twice_or_an_unknown_item_is_refused_at_build_time() -> None:
    model = ScriptedChatModel(turns=["never called"])
    with pytest.raises(RegistrationError, match="already taken"):
        build_agent(model, [shout, FunctionTool(shout)])
    with pytest.raises(RegistrationError, match="Cannot use int 42 as tools"):
        build_agent(model, [shout, 42])
