"""The core's type table (anything handed over as tools becomes a Toolset) and the clash rules
of ``registry.add_toolset``."""

from __future__ import annotations

import logging

import pytest

from tests.toolkit import tools_for_tests
from toolkit import (
    FunctionTool,
    RegistrationError,
    Tool,
    ToolRegistry,
    Toolset,
    as_toolset,
    mcp_tool,
)
from toolkit.toolsets.object_toolset import ObjectToolset
from toolkit.toolsets.toolset import BaseToolset
from toolkit.toolsets.toolset_kinds import TOOLSET_KINDS, RegistryToolset

pytestmark = pytest.mark.anyio


def shout(text: str) -> str:
    """Say it loudly.

    Args:
        text: What to say.
    """
    return text.upper()


class Shop:
    """A class with a decorated method: its instances are sources."""

    def __init__(self, stock: int) -> None:
        self.stock = stock

    @mcp_tool
    def count(self) -> int:
        """How many items are in stock."""
        return self.stock

    @staticmethod
    @mcp_tool
    def open_hours() -> str:
        """When the shop is open."""
        return "9-17"


class Hours:
    """A class whose tools need no instance."""

    @staticmethod
    @mcp_tool
    def open_hours() -> str:
        """When the shop is open."""
        return "9-17"


class Listed(BaseToolset):
    """A source whose list changes when told to."""

    def __init__(self, *tools: Tool) -> None:
        super().__init__()
        self.current = list(tools)

    async def get_tools(self) -> list[Tool]:
        return list(self.current)

    def change(self, *tools: Tool) -> None:
        self.current = list(tools)
        self._notify(self.current)


async def names_of(item: object) -> list[str]:
    return [tool.name for tool in await as_toolset(item).get_tools()]


async def test_each_kind_becomes_a_toolset_of_its_tools() -> None:
    other = ToolRegistry()
    other.register(shout)
    toolset = ObjectToolset(shout)
    assert as_toolset(toolset) is toolset
    assert isinstance(as_toolset(other), RegistryToolset)
    assert await names_of(other) == ["shout"]
    assert await names_of(FunctionTool(tools_for_tests.add)) == ["add"]
    assert await names_of(tools_for_tests.add) == ["add"]  # decorated
    assert await names_of(shout) == ["shout"]  # plain function
    assert "find_player" in await names_of(tools_for_tests)  # module
    assert "find_player" in await names_of("tests.toolkit.tools_for_tests")  # dotted name
    assert await names_of(Hours) == ["open_hours"]  # class: static and class methods
    assert sorted(await names_of(Shop(3))) == ["count", "open_hours"]  # instance: bound
    for item in (toolset, other, shout, Shop(1)):
        assert isinstance(as_toolset(item), Toolset)


async def test_a_bound_method_of_an_instance_runs_on_that_instance() -> None:
    registry = ToolRegistry()
    await registry.add_toolset(as_toolset(Shop(7)))
    assert (await registry.call("count", {})).structured == {"result": 7}


@pytest.mark.parametrize("item", [None, 3, 2.5, [shout], {"a": shout}, b"x", (shout,)])
def test_anything_else_is_refused_naming_every_accepted_kind(item: object) -> None:
    with pytest.raises(RegistrationError) as caught:
        as_toolset(item)
    message = str(caught.value)
    assert message.startswith(f"Cannot use {type(item).__name__} ")
    for kind in TOOLSET_KINDS:
        assert kind.name in message


def test_a_long_repr_is_cut_in_the_message() -> None:
    with pytest.raises(RegistrationError) as caught:
        as_toolset(["x" * 500])
    assert len(str(caught.value)) < 700 and "…" in str(caught.value)


async def test_a_registry_source_follows_the_registry_it_reads() -> None:
    source = ToolRegistry()
    source.register(shout)
    target = ToolRegistry()
    await target.add_toolset(as_toolset(source))
    source.register(tools_for_tests.add)
    assert target.names() == ["shout", "add"]
    source.remove("shout")
    assert target.names() == ["add"]
    assert (await target.call("add", {"a": 1, "b": 2})).structured == {"result": 3}


async def test_refuse_adds_nothing_when_one_name_is_taken() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    with pytest.raises(RegistrationError) as caught:
        await registry.add_toolset(ObjectToolset(tools_for_tests.add, shout), on_clash="refuse")
    assert "'shout'" in str(caught.value) and "prefixed" in str(caught.value)
    assert registry.names() == ["shout"]


async def test_skip_adds_the_others_and_warns_naming_tool_holder_and_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry()
    registry.register(shout)
    with caplog.at_level(logging.WARNING, logger="toolkit.registry"):
        added = await registry.add_toolset(
            ObjectToolset(tools_for_tests.add, shout), on_clash="skip"
        )
    assert [t.name for t in added] == ["add"]
    assert registry.names() == ["shout", "add"]
    [warning] = [r.getMessage() for r in caplog.records]
    assert "'shout'" in warning  # the tool
    assert "test_toolset_kinds" in warning  # the source already holding the name
    assert "prefixed" in warning and "filtered" in warning  # the fixes


async def test_skip_drops_a_name_given_twice_by_the_same_toolset() -> None:
    registry = ToolRegistry()
    added = registry.add_toolset_sync(ObjectToolset(shout, FunctionTool(shout)), on_clash="skip")
    assert [t.name for t in added] == ["shout"]


async def test_skip_still_refuses_a_toolset_whose_every_tool_clashes() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    registry.register(tools_for_tests.add)
    with pytest.raises(RegistrationError) as caught:
        await registry.add_toolset(ObjectToolset(shout, tools_for_tests.add), on_clash="skip")
    assert "None of the 2 tools" in str(caught.value)


async def test_a_skipped_name_comes_in_on_a_later_list_once_it_is_free() -> None:
    registry = ToolRegistry()
    registry.register(shout)
    source = Listed(FunctionTool(shout), FunctionTool(tools_for_tests.add))
    await registry.add_toolset(source, on_clash="skip")
    registry.remove("shout")
    source.change(FunctionTool(shout), FunctionTool(tools_for_tests.add))
    assert sorted(registry.names()) == ["add", "shout"]


def test_an_unknown_rule_is_refused() -> None:
    with pytest.raises(RegistrationError, match="'refuse' or 'skip'"):
        ToolRegistry().add_toolset_sync(ObjectToolset(shout), on_clash="merge")  # type: ignore[arg-type]
