"""The registry: registering, naming, scanning, looking up, filtering, discovery, the decorator."""

from __future__ import annotations

import functools
import inspect
import re
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.toolkit import tools_for_tests as t
from toolkit import (
    FunctionTool,
    RegistrationError,
    Tool,
    ToolContext,
    ToolError,
    ToolRegistry,
    ToolResult,
    ToolSpec,
    mcp_tool,
)
from toolkit.tool import ArgumentProblem, InvalidArguments

# -- helpers ------------------------------------------------------------------------------------


def _tool_source(name: str, doc: str = "Does a thing.") -> str:
    return textwrap.dedent(
        f'''
        @mcp_tool
        def {name}(x: int) -> int:
            """{doc}

            Args:
                x: A number.
            """
            return x
        '''
    )


@pytest.fixture
def make_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., str]]:
    """Write a throwaway package (files given as ``{relative path: source}``) onto sys.path."""
    created: list[str] = []
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(files: dict[str, str]) -> str:
        name = f"pkg_{uuid.uuid4().hex[:10]}"
        created.append(name)
        for rel, source in files.items():
            path = tmp_path / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            header = "from toolkit import mcp_tool\n" if "mcp_tool" in source else ""
            path.write_text(header + source.replace("PKG", name))
        return name

    yield make
    for mod in [m for m in sys.modules if m.split(".")[0] in created]:
        del sys.modules[mod]


class EchoTool:
    """A hand-written Tool (not a function): what a remote or HTTP tool looks like."""

    runs = "async"

    def __init__(self, name: str = "echo") -> None:
        self._name = name
        self.spec = ToolSpec(
            name=name,
            description="Echo the text back.",
            input_schema={
                "type": "object",
                "properties": {"text": {"type": "string", "description": "What to echo."}},
                "required": ["text"],
            },
            source=f"custom://{name}",
        )

    @property
    def name(self) -> str:
        return self._name

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(arguments.get("text"), str):
            raise InvalidArguments([ArgumentProblem("text", "type", "must be a string")])
        return arguments

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult(content=arguments["text"].upper())

    def renamed(self, name: str) -> EchoTool:
        return EchoTool(name)


def plain_multiply(a: int, b: int) -> int:
    """Multiply two numbers (no decorator).

    Args:
        a: Left factor.
        b: Right factor.
    """
    return a * b


# -- registering --------------------------------------------------------------------------------


def test_register_decorated_undecorated_functiontool_and_custom_tool() -> None:
    registry = ToolRegistry()
    registry.register(t.add)
    registry.register(plain_multiply)
    registry.register(FunctionTool(t.tag_items, name="count_items"))
    custom = registry.register(EchoTool())

    assert registry.names() == ["add", "plain_multiply", "count_items", "echo"]
    assert isinstance(custom, Tool) and registry.get("echo") is custom
    assert registry.call_sync("plain_multiply", {"a": 6, "b": 7}).content == "42"
    assert registry.call_sync("count_items", {"items": ["a"], "labels": {"a": 2}}).structured == {
        "a": 2
    }
    assert registry.call_sync("echo", {"text": "hi"}).content == "HI"
    spec = registry.get("plain_multiply").spec
    assert spec.description == "Multiply two numbers (no decorator)."
    assert spec.parameters["a"]["description"] == "Left factor."


def test_namespace_prefixes_with_underscore_never_a_dot() -> None:
    registry = ToolRegistry()
    registry.register(t.add, namespace="warehouse")
    registry.register(EchoTool(), namespace="remote")
    registry.scan(t.Flaky(0), namespace="svc")
    assert registry.names() == ["warehouse_add", "remote_echo", "svc_fetch"]
    assert all("." not in n for n in registry.names())
    assert registry.get("remote_echo").spec.name == "remote_echo"
    assert registry.call_sync("warehouse_add", {"a": 1}).content == "2"


def test_register_with_explicit_name_and_namespace() -> None:
    registry = ToolRegistry()
    registry.register(t.add, name="sum_two", namespace="math")
    assert registry.names() == ["math_sum_two"]


@pytest.mark.parametrize(
    ("kwargs", "suggested"),
    [({"name": "query.bins"}, "query_bins"), ({"namespace": "ware house"}, "ware_house_add")],
)
def test_invalid_registry_name_names_the_function_and_a_valid_name(
    kwargs: dict[str, str], suggested: str
) -> None:
    registry = ToolRegistry()
    with pytest.raises(RegistrationError) as info:
        registry.register(t.add, **kwargs)
    message = str(info.value)
    assert "tools_for_tests:add" in message and "^[a-zA-Z0-9_-]{1,64}$" in message
    assert repr(suggested) in message
    assert not len(registry)


def test_invalid_decorator_name_fails_at_decoration() -> None:
    with pytest.raises(RegistrationError) as info:

        @mcp_tool(name="Query Bins!")
        def query_bins(code: str) -> str:
            return code

    assert "test_invalid_decorator_name_fails_at_decoration.<locals>.query_bins" in str(info.value)
    assert "@mcp_tool(name='Query_Bins')" in str(info.value)


def test_function_name_too_long_or_not_ascii_suggests_a_valid_name() -> None:
    def größe(x: int) -> int:
        return x

    with pytest.raises(RegistrationError, match=r"name='gr__e'"):
        mcp_tool(größe)
    long_name = "f" * 70
    with pytest.raises(RegistrationError, match="f" * 64 + "'"):
        ToolRegistry().register(plain_multiply, name=long_name)


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("def bad(*items: str) -> int:\n    return 0\n", r"`\*items`.*list parameter"),
        ("def bad(**opts: str) -> int:\n    return 0\n", r"`\*\*opts`.*dict\[str, Any\]"),
        ("def bad(x) -> int:\n    return 0\n", r"`x` has no type hint.*`x: str`"),
    ],
)
def test_function_that_cannot_be_a_tool_fails_at_registration(source: str, fragment: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    registry = ToolRegistry()
    with pytest.raises(RegistrationError, match=fragment):
        registry.register(namespace["bad"])
    assert "bad" not in registry


class Opaque:
    """A type pydantic has no schema for."""


def test_type_without_schema_is_an_error_result_at_call_time_not_a_crash() -> None:
    def uses_opaque(thing: Opaque) -> str:
        """Takes something pydantic cannot describe."""
        return "never"

    registry = ToolRegistry()
    registry.register(uses_opaque)
    result = registry.call_sync("uses_opaque", {"thing": 1})
    assert result.is_error and result.content.startswith("Error [EXECUTION_ERROR]")
    assert "cannot be called" in result.content and "Traceback" not in result.content


def test_duplicate_name_names_both_sources_and_the_fix() -> None:
    registry = ToolRegistry()
    registry.register(t.add)

    def add(x: int) -> int:
        return x

    with pytest.raises(RegistrationError) as info:
        registry.register(add)
    message = str(info.value)
    assert "'add' is already taken by tests.toolkit.tools_for_tests:add" in message
    assert "test_duplicate_name_names_both_sources_and_the_fix.<locals>.add" in message
    assert "name=" in message and "namespace" in message
    # never a silent overwrite: the first one still answers
    assert registry.get("add").spec.source.startswith("tests.toolkit.tools_for_tests:add")
    assert registry.call_sync("add", {"a": 1}).content == "2"


def test_duplicate_custom_tool_and_same_object_twice() -> None:
    registry = ToolRegistry()
    echo = registry.add(EchoTool())
    assert registry.add(echo) is echo  # the very same object is not a conflict
    with pytest.raises(RegistrationError, match=r"custom://echo.*custom://echo"):
        registry.add(EchoTool())
    assert len(registry) == 1


def test_remove_and_container_protocol() -> None:
    registry = ToolRegistry()
    registry.scan(t)
    assert "add" in registry and "nope" not in registry and 42 not in registry
    assert len(registry) == len(registry.names()) == len(registry.specs())
    assert (
        [tool.name for tool in registry] == registry.names() == [x.name for x in registry.tools()]
    )
    assert all(isinstance(tool, Tool) for tool in registry)
    removed = registry.remove("add")
    assert removed.name == "add" and "add" not in registry
    with pytest.raises(KeyError):
        registry.remove("add")


def test_get_unknown_name_is_a_keyerror_with_did_you_mean() -> None:
    registry = ToolRegistry()
    registry.scan(t)
    with pytest.raises(KeyError) as info:
        registry.get("find_playr")
    assert "Did you mean 'find_player'" in str(info.value)


def test_on_change_fires_on_add_and_remove_until_unsubscribed() -> None:
    registry = ToolRegistry()
    events: list[int] = []
    unsubscribe = registry.on_change(lambda: events.append(len(registry)))
    registry.register(t.add)
    registry.register(EchoTool())
    registry.remove("add")
    assert events == [1, 2, 1]
    unsubscribe()
    registry.register(t.crash)
    assert events == [1, 2, 1]


def test_failing_change_listener_does_not_break_registration() -> None:
    registry = ToolRegistry()

    def boom() -> None:
        raise RuntimeError("listener bug")

    registry.on_change(boom)
    registry.register(t.add)
    assert "add" in registry


# -- filtering ----------------------------------------------------------------------------------


def test_filter_by_names_and_tags_shares_invoker_settings() -> None:
    from adapters.demo.warehouse_app import build_registry

    registry = build_registry()
    reads = registry.filter(tags=["read"])
    assert set(reads.names()) == {
        "query_bins",
        "get_bin",
        "get_stock",
        "reports_utilisation",
        "reports_my_tenant",
    }
    bins_or_stock_reads = registry.filter(tags={"bins", "stock"})
    assert "move_stock" in bins_or_stock_reads and "reports_utilisation" not in bins_or_stock_reads
    both = registry.filter(names=["get_bin", "delete_bin", "get_stock"], tags=["read"])
    assert set(both.names()) == {"get_bin", "get_stock"}
    assert len(registry.filter(tags=[])) == 0

    seen: list[str] = []
    registry.subscribe(lambda record: seen.append(record.tool))
    result = both.call_sync("delete_bin", {"code": "A-01-01"})
    assert result.is_error and "Did you mean" in result.content  # not in the view
    assert both.call_sync("get_bin", {"code": "A-01-01"}).is_error is False
    assert seen == ["delete_bin", "get_bin"]  # the view reports to the parent's subscribers
    assert len(registry) > len(both)  # the parent is untouched

    with pytest.raises(KeyError, match="get_bins"):
        registry.filter(names=["get_bins"])


# -- scanning -----------------------------------------------------------------------------------


def test_scan_module_finds_functions_and_methods_of_classes_in_stable_order() -> None:
    registry = ToolRegistry()
    added = registry.scan(t)
    assert [tool.name for tool in added] == registry.names()
    assert set(registry.names()) == {
        "add",
        "crash",
        "find_player",
        "login",
        "slow_async",
        "slow_sync",
        "tag_items",
        "whoami",
        "wipe",
    }  # Flaky.fetch is an instance method: only an instance can register it


def test_scan_dotted_package_name_walks_subpackages_once(make_package: Callable[..., str]) -> None:
    name = make_package(
        {
            "__init__.py": "from PKG.orders.query import list_orders\n" + _tool_source("ping"),
            "orders/__init__.py": "",
            "orders/query.py": _tool_source("list_orders"),
            "orders/deep/__init__.py": "",
            "orders/deep/archive.py": _tool_source("archive_order")
            + "\ndef helper(x: int) -> int:\n    return x\n",
            "billing.py": "import PKG.orders.query as q\nfrom PKG.orders.query import *\n"
            + _tool_source("send_invoice"),
        }
    )
    registry = ToolRegistry()
    registry.scan(name)
    # re-exports (in __init__ and via import *) are registered once, where they are defined
    assert sorted(registry.names()) == ["archive_order", "list_orders", "ping", "send_invoice"]
    assert registry.get("list_orders").spec.source.startswith(f"{name}.orders.query:list_orders")


def test_scan_module_object_with_namespace(make_package: Callable[..., str]) -> None:
    name = make_package({"__init__.py": _tool_source("ping")})
    registry = ToolRegistry()
    registry.scan(__import__(name), namespace="ops")
    assert registry.names() == ["ops_ping"]


def test_scan_missing_module_and_broken_submodule_explain_the_fix(
    make_package: Callable[..., str],
) -> None:
    with pytest.raises(RegistrationError, match=r"'no_such_pkg_x' was not found.*sys.path"):
        ToolRegistry().scan("no_such_pkg_x.tools")
    name = make_package({"__init__.py": "", "broken.py": "raise RuntimeError('db down')\n"})
    with pytest.raises(RegistrationError, match=r"broken'.*RuntimeError: db down.*narrower"):
        ToolRegistry().scan(name)


def test_scan_instance_registers_bound_methods_without_self() -> None:
    flaky = t.Flaky(failures=0)
    registry = ToolRegistry()
    (tool,) = registry.scan(flaky)
    assert tool.name == "fetch"
    assert set(tool.spec.parameters) == {"key"} and tool.spec.required == ["key"]
    assert registry.call_sync("fetch", {"key": "k"}).content == "value of k"
    assert flaky.calls == 1  # bound to this very instance


def test_scan_instance_includes_inherited_tools_and_overrides_once() -> None:
    class Base:
        @mcp_tool
        def ping(self) -> str:
            """Ping."""
            return "base"

        @mcp_tool
        def version(self) -> str:
            """Version."""
            return "1"

    class Child(Base):
        @mcp_tool
        def ping(self) -> str:
            """Ping (child)."""
            return "child"

    registry = ToolRegistry()
    registry.scan(Child())
    assert sorted(registry.names()) == ["ping", "version"]
    assert registry.call_sync("ping").content == "child"


class Catalog:
    """Static and class methods as tools."""

    prefix = "SKU"

    @staticmethod
    @mcp_tool
    def normalise(sku: str) -> str:
        """Upper-case a SKU.

        Args:
            sku: The SKU.
        """
        return sku.upper()

    @mcp_tool
    @classmethod
    def make_sku(cls, number: int) -> str:
        """Build a SKU.

        Args:
            number: Running number.
        """
        return f"{cls.prefix}-{number}"

    @classmethod
    @mcp_tool(name="catalog_size")
    def size(cls) -> int:
        """How many SKUs exist."""
        return 3

    @mcp_tool
    @staticmethod
    def is_valid(sku: str) -> bool:
        """Check a SKU.

        Args:
            sku: The SKU.
        """
        return sku.startswith("SKU-")


def test_staticmethod_and_classmethod_in_either_order() -> None:
    assert Catalog.normalise("ab") == "AB" and Catalog().normalise("ab") == "AB"
    assert Catalog.make_sku(7) == "SKU-7" and Catalog.size() == 3 and Catalog.is_valid("SKU-1")
    registry = ToolRegistry()
    registry.scan(Catalog)
    assert sorted(registry.names()) == ["catalog_size", "is_valid", "make_sku", "normalise"]
    assert list(registry.get("make_sku").spec.parameters) == ["number"]  # no cls
    assert registry.call_sync("make_sku", {"number": 5}).content == "SKU-5"
    assert registry.call_sync("catalog_size").content == "3"
    assert registry.call_sync("is_valid", {"sku": "x"}).content == "false"


def test_scan_class_with_instance_methods_asks_for_an_instance() -> None:
    with pytest.raises(RegistrationError) as info:
        ToolRegistry().scan(t.Flaky)
    assert "Flaky has instance methods marked @mcp_tool (fetch)" in str(info.value)
    assert "registry.scan(Flaky(...))" in str(info.value)


def test_registering_the_unbound_method_says_to_bind_it() -> None:
    with pytest.raises(RegistrationError, match=r"`self` is not bound.*instance"):
        ToolRegistry().register(t.Flaky.fetch)


# -- discovery through entry points -------------------------------------------------------------


def test_discover_registers_tools_of_installed_distributions(
    tmp_path: Path, make_package: Callable[..., str]
) -> None:
    pkg = make_package(
        {
            "__init__.py": "",
            "tools.py": _tool_source("plugin_ping"),
            "single.py": "def lonely(x: int) -> int:\n    '''Alone.'''\n    return x\n",
            "app.py": "from toolkit import ToolRegistry\nfrom PKG.tools import plugin_ping\n"
            "registry = ToolRegistry()\nregistry.register(plugin_ping, name='merged_ping')\n",
        }
    )
    dist = tmp_path / f"{pkg}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {pkg}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[mcp_toolkit.tools]\n"
        f"a_module = {pkg}.tools\n"
        f"b_function = {pkg}.single:lonely\n"
        f"c_registry = {pkg}.app:registry\n"
        f"\n[some.other.group]\nignored = {pkg}.tools\n"
    )
    registry = ToolRegistry()
    added = registry.discover()
    assert {tool.name for tool in added} >= {"plugin_ping", "lonely", "merged_ping"}
    assert registry.call_sync("merged_ping", {"x": 3}).content == "3"


def test_discover_reports_an_entry_point_that_fails_to_load(
    tmp_path: Path, make_package: Callable[..., str]
) -> None:
    pkg = make_package({"__init__.py": "raise ImportError('missing driver')\n"})
    dist = tmp_path / f"{pkg}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {pkg}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[test.{pkg}]\nbroken = {pkg}\n")
    with pytest.raises(RegistrationError, match=r"'broken'.*failed to load.*missing driver"):
        ToolRegistry().discover(group=f"test.{pkg}")


# -- notebooks ----------------------------------------------------------------------------------


def test_repr_html_lists_names_types_descriptions_and_escapes_html() -> None:
    @mcp_tool(tags={"<b>"})
    def risky(limit: int, label: str = "x") -> str:
        """Shows <script>alert(1)</script> & more.

        Args:
            limit: At most <this> many.
            label: A label.
        """
        return label

    registry = ToolRegistry()
    registry.scan(t)
    registry.register(risky)
    html = registry._repr_html_()
    for name in registry.names():
        assert f"<b>{name}</b>" in html
    assert "<code>player_id</code>: integer &gt;= 1" in html
    assert "The player&#x27;s id." in html and "Add two numbers." in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more." in html
    assert "At most &lt;this&gt; many." in html and "#&lt;b&gt;" in html
    assert "<script>" not in html
    assert "<code>label</code>: string <i>(optional)</i>" in html
    assert "&lt;script&gt;" in FunctionTool(risky)._repr_html_()


# -- the decorator ------------------------------------------------------------------------------


def test_decorator_returns_the_same_function_with_the_same_signature() -> None:
    def query(tenant_code: str, limit: int = 10, *, strict: bool = False) -> list[str]:
        """Query."""
        return [tenant_code] * limit if strict else []

    before = inspect.signature(query)
    decorated = mcp_tool(timeout=3)(query)
    assert decorated is query and inspect.signature(decorated) == before
    assert decorated("a", 2, strict=True) == ["a", "a"]
    assert query.__mcp_tool__.options.timeout == 3  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_decorated_async_function_stays_a_coroutine_function() -> None:
    assert inspect.iscoroutinefunction(t.find_player)
    player = await t.find_player(3, ToolContext(values={"tenant": "acme"}))
    assert player.name == "acme"


def _logged(calls: list[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(fn.__name__)
            return fn(*args, **kwargs)

        return wrapper

    return decorator


def test_stacked_with_functools_wraps_decorators_in_either_order() -> None:
    calls: list[str] = []

    @mcp_tool
    @_logged(calls)
    def outer(sku: str, count: int = 1) -> str:
        """Tool outside the wrapper.

        Args:
            sku: The SKU.
            count: How many.
        """
        return sku * count

    @_logged(calls)
    @mcp_tool(name="inner_tool")
    def inner(sku: str) -> str:
        """Tool inside the wrapper.

        Args:
            sku: The SKU.
        """
        return sku.lower()

    assert outer("a", 2) == "aa" and inner("B") == "b"
    registry = ToolRegistry()
    registry.register(outer)
    registry.register(inner)
    assert registry.names() == ["outer", "inner_tool"]
    assert list(registry.get("outer").spec.parameters) == ["sku", "count"]
    assert registry.get("inner_tool").spec.parameters["sku"]["description"] == "The SKU."
    assert registry.call_sync("outer", {"sku": "x", "count": 3}).content == "xxx"
    assert registry.call_sync("inner_tool", {"sku": "Q"}).content == "q"
    assert calls == ["outer", "inner", "outer", "inner"]  # the wrappers ran on every call


def test_decorating_is_lazy_until_the_spec_is_read() -> None:
    @mcp_tool
    def lazy(code: str) -> str:
        """Lazy.

        Args:
            code: A code.
        """
        return code

    definition = lazy.__mcp_tool__  # type: ignore[attr-defined]
    assert definition._schemas == {}
    registry = ToolRegistry()
    tool = registry.register(lazy)
    assert definition._schemas == {}  # registering is cheap too
    assert tool.spec.input_schema["required"] == ["code"]
    assert len(definition._schemas) == 1
    cached = definition._schemas[False]
    assert FunctionTool(lazy).schema is cached  # built once, shared


def test_decorator_rejects_bad_options_and_non_functions() -> None:
    with pytest.raises(RegistrationError, match="retries must be 0 or more"):
        mcp_tool(retries=-1)
    with pytest.raises(RegistrationError, match="timeout must be a positive"):
        mcp_tool(timeout=0)
    with pytest.raises(RegistrationError, match="not int objects"):
        mcp_tool(3)  # type: ignore[call-overload]


def test_decorator_options_reach_the_spec() -> None:
    @mcp_tool(
        name="remove_bin",
        description="Remove a bin.",
        tags=["bins", "write"],
        title="Remove bin",
        timeout=5,
        retries=2,
        destructive=True,
        idempotent=True,
        open_world=False,
        requires_approval=False,
    )
    def drop(code: str) -> str:
        return code

    spec = FunctionTool(drop).spec
    assert (spec.name, spec.description, spec.title) == (
        "remove_bin",
        "Remove a bin.",
        "Remove bin",
    )
    assert spec.tags == {"bins", "write"}
    assert (spec.options.timeout, spec.options.retries) == (5, 2)
    assert spec.annotations.to_mcp() == {
        "title": "Remove bin",
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert spec.needs_approval is False
    assert re.fullmatch(
        r"tests\.toolkit\.test_registry:.*\.drop \(.*test_registry\.py:\d+\)", spec.source
    )


def test_tool_error_from_custom_tool_passes_through() -> None:
    class Down(EchoTool):
        async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
            raise ToolError("The echo service is down; try later.", retryable=True)

    registry = ToolRegistry()
    registry.add(Down("down"))
    result = registry.call_sync("down", {"text": "x"})
    assert result.is_error and "The echo service is down; try later." in result.content
