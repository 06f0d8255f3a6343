"""The Toolset contract in the core: local sources, the wrappers, and the registry binding."""

from __future__ import annotations

import pytest

from tests.toolkit import tools_for_tests
from toolkit import (
    ErrorCode,
    FunctionTool,
    RegistrationError,
    Tool,
    ToolRegistry,
    Toolset,
    mcp_tool,
)
from toolkit.toolsets.object_toolset import ObjectToolset
from toolkit.toolsets.pinned import PinnedTool
from toolkit.toolsets.toolset import BaseToolset

pytestmark = pytest.mark.anyio


@mcp_tool
def greet(name: str, punctuation: str = "!") -> str:
    """Greet someone.

    Args:
        name: Who.
        punctuation: How to end.
    """
    return f"hello {name}{punctuation}"


class Changing(BaseToolset):
    """A source whose list changes when told to (as an MCP server's does)."""

    def __init__(self, *tools: Tool) -> None:
        super().__init__()
        self.current = list(tools)
        self.closed = 0

    async def get_tools(self) -> list[Tool]:
        return list(self.current)

    def change(self, *tools: Tool) -> None:
        self.current = list(tools)
        self._notify(self.current)

    async def aclose(self) -> None:
        self.closed += 1


async def test_every_source_kind_satisfies_the_protocol() -> None:
    assert isinstance(ObjectToolset(tools_for_tests), Toolset)
    assert isinstance(Changing().prefixed("p").pinned({}), Toolset)


async def test_a_module_toolset_gives_what_scan_gives() -> None:
    scanned = ToolRegistry()
    scanned.scan(tools_for_tests, namespace="t")
    registry = ToolRegistry()
    added = await registry.add_toolset(
        ObjectToolset("tests.toolkit.tools_for_tests", namespace="t")
    )
    assert [t.name for t in added] == scanned.names() == registry.names()
    assert (await registry.call("t_add", {"a": 2})).structured == {"result": 3}


def test_sync_code_adds_a_toolset_and_functions_are_sources_too() -> None:
    registry = ToolRegistry()
    with ObjectToolset(greet) as toolset:
        registry.add_toolset_sync(toolset)
    assert registry.call_sync("greet", {"name": "ada"}).content == "hello ada!"


async def test_adding_is_all_or_nothing_and_names_the_fixes() -> None:
    registry = ToolRegistry()
    registry.register(greet)
    with pytest.raises(RegistrationError) as caught:
        await registry.add_toolset(ObjectToolset(tools_for_tests.add, greet))
    assert "prefixed" in str(caught.value) and "already taken" in str(caught.value)
    assert registry.names() == ["greet"]  # `add` did not come in alone
    await registry.add_toolset(ObjectToolset(tools_for_tests.add, greet).prefixed("x"))
    assert registry.names() == ["greet", "x_add", "x_greet"]


async def test_a_changed_list_is_swapped_in_and_only_its_own_tools_leave() -> None:
    source = Changing(FunctionTool(greet))
    registry = ToolRegistry()
    registry.register(tools_for_tests.add)
    await registry.add_toolset(source.prefixed("src"))
    assert registry.names() == ["add", "src_greet"]
    source.change(FunctionTool(greet), FunctionTool(tools_for_tests.crash))
    assert registry.names() == ["add", "src_greet", "src_crash"]
    source.change(FunctionTool(tools_for_tests.add))
    assert registry.names() == ["add", "src_add"]


async def test_filtered_and_renamed_change_the_list() -> None:
    toolset = ObjectToolset(tools_for_tests).filtered(lambda t: t.name in {"add", "login"})
    registry = ToolRegistry()
    await registry.add_toolset(toolset.renamed({"add": "plus"}))
    assert sorted(registry.names()) == ["login", "plus"]
    with pytest.raises(RegistrationError, match=r"Cannot rename 'nope'.*no such tool"):
        await ToolRegistry().add_toolset(toolset.renamed({"nope": "x"}))
    with pytest.raises(RegistrationError, match="must match"):
        toolset.renamed({"add": "not valid"})
    with pytest.raises(RegistrationError, match="prefix"):
        toolset.prefixed("a b")


async def test_a_pinned_argument_leaves_the_schema_and_is_set_on_every_call() -> None:
    registry = ToolRegistry()
    await registry.add_toolset(ObjectToolset(greet).pinned({"greet": {"punctuation": "?"}}))
    spec = registry.get("greet").spec
    assert list(spec.parameters) == ["name"]
    assert (await registry.call("greet", {"name": "ada"})).content == "hello ada?"
    # The model cannot set it: the parameter does not exist for it.
    tried = await registry.call("greet", {"name": "ada", "punctuation": "!"})
    assert tried.is_error and tried.code == ErrorCode.INVALID_PARAMS
    assert "punctuation" in str(tried.content)


async def test_pinning_a_missing_parameter_or_a_bad_value_fails_at_registration() -> None:
    with pytest.raises(RegistrationError, match=r"no such parameter.*name, punctuation"):
        await ToolRegistry().add_toolset(ObjectToolset(greet).pinned({"greet": {"nope": 1}}))
    with pytest.raises(RegistrationError, match="does not fit its schema"):
        await ToolRegistry().add_toolset(ObjectToolset(greet).pinned({"greet": {"punctuation": 3}}))
    with pytest.raises(RegistrationError, match="no such tool"):
        await ToolRegistry().add_toolset(ObjectToolset(greet).pinned({"hello": {"name": "x"}}))


async def test_a_required_parameter_pinned_is_no_longer_required() -> None:
    pinned = PinnedTool(FunctionTool(greet), {"name": "bob"})
    assert pinned.spec.required == []
    assert pinned.renamed("hi").spec.parameters.keys() == {"punctuation"}
    registry = ToolRegistry()
    registry.add(pinned.renamed("hi"))
    assert (await registry.call("hi", {})).content == "hello bob!"


async def test_wrappers_pass_the_lifecycle_through() -> None:
    source = Changing()
    async with source.filtered(lambda t: True).prefixed("p"):
        pass
    assert source.closed == 1
    with source.renamed({}):
        pass  # BaseToolset.close is sync and releases nothing
    assert source.closed == 1


def test_a_pinned_local_function_keeps_the_registry_timeout_and_sync_path() -> None:
    registry = ToolRegistry(timeout=0.2)
    pinned = ObjectToolset(tools_for_tests.slow_sync).pinned({"slow_sync": {"seconds": 1.0}})
    registry.add_toolset_sync(pinned)
    result = registry.call_sync("slow_sync", {})
    assert result.code == ErrorCode.TIMEOUT, result.content
    fast = ObjectToolset(greet).pinned({"greet": {"punctuation": "."}})
    registry.add_toolset_sync(fast)
    assert registry.call_sync("greet", {"name": "x"}).content == "hello x."


async def test_a_registry_is_a_source_and_a_long_namespace_is_refused() -> None:
    local = ToolRegistry()
    local.register(greet)
    merged = ToolRegistry()
    await merged.add_toolset(ObjectToolset(local, namespace="team"))
    assert merged.names() == ["team_greet"]
    with pytest.raises(RegistrationError, match=r"becomes 'n{60}_greet'.*shorter namespace"):
        await ToolRegistry().add_toolset(ObjectToolset(local, namespace="n" * 60))
