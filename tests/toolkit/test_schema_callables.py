"""Methods, partials, wrapped functions, injected parameters and registration errors."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

import pytest

from tests.support.schema_helpers import build
from toolkit.context import Injected, ToolContext
from toolkit.errors import RegistrationError
from toolkit.schema import build_function_schema, is_injected_annotation

if TYPE_CHECKING:
    from decimal import Decimal

T = TypeVar("T")


# Stand-ins shaped like LangChain's and LangGraph's markers (same class names, no import).
class InjectedToolArg:
    pass


class InjectedToolCallId(InjectedToolArg):
    pass


class InjectedState(InjectedToolArg):
    def __init__(self, field: str | None = None) -> None:
        self.field = field


class ToolRuntime(Generic[T]):
    pass


class Warehouse:
    def __init__(self, code: str) -> None:
        self.code = code

    def count(self, zone: str, limit: int = 5) -> str:
        """Count bins in a zone.

        Args:
            zone: The zone.
            limit: At most this many.
        """
        return f"{self.code}:{zone}:{limit}"

    @classmethod
    def make(cls, code: str) -> str:
        """Make one."""
        return code

    async def fetch(self, bin_code: str) -> str:
        return bin_code


def logged(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


@logged
def wrapped(bin_code: str, qty: int = 1) -> int:
    """Move stock.

    Args:
        bin_code: Target bin.
    """
    return qty


def partial_target(tenant: str, bin_code: str, qty: int = 1) -> str:
    """Reserve stock."""
    return f"{tenant}:{bin_code}:{qty}"


def properties(fn: Any) -> list[str]:
    return list(build(fn).input_schema["properties"])


def test_bound_method_and_classmethod() -> None:
    built = build(Warehouse("W1").count)
    assert list(built.input_schema["properties"]) == ["zone", "limit"]
    assert built.input_schema["properties"]["zone"]["description"] == "The zone."
    assert built.param_names == ("zone", "limit")
    assert properties(Warehouse.make) == ["code"]
    assert build(Warehouse("W1").fetch).is_async is True


def test_unbound_method_names_the_fix() -> None:
    with pytest.raises(RegistrationError, match=r"Warehouse\.count.*`self` is not bound.*instance"):
        build_function_schema(Warehouse.count)


def test_partial() -> None:
    built = build(functools.partial(partial_target, "acme"))
    assert list(built.input_schema["properties"]) == ["bin_code", "qty"]
    assert built.description == "Reserve stock."
    keyword = build(functools.partial(partial_target, tenant="acme"))
    assert list(keyword.input_schema["properties"]) == ["tenant", "bin_code", "qty"]
    assert keyword.input_schema["properties"]["tenant"]["default"] == "acme"


def test_wrapped_function() -> None:
    built = build(wrapped)
    assert list(built.input_schema["properties"]) == ["bin_code", "qty"]
    assert built.input_schema["properties"]["bin_code"]["description"] == "Target bin."
    assert built.description == "Move stock."
    assert built.output_schema is not None and built.wraps_result


def test_async_and_callable_object() -> None:
    async def run(x: int) -> int:
        return x

    class Counter:
        """Count things."""

        def __call__(self, n: int) -> int:
            return n

    assert build(run).is_async is True
    counter = build(Counter())
    assert counter.is_async is False
    assert list(counter.input_schema["properties"]) == ["n"]


def test_string_annotations() -> None:
    def fn(a: "int", b: "list[str] | None" = None) -> "dict[str, int]":  # noqa: UP037
        return {}

    built = build(fn)
    assert built.input_schema["properties"]["a"] == {"type": "integer"}
    assert built.output_schema == {"type": "object", "additionalProperties": {"type": "integer"}}


def test_injected_parameters_are_left_out() -> None:
    def fn(
        ctx: ToolContext,
        maybe_ctx: ToolContext | None,
        tenant: Annotated[str, Injected],
        call_id: Annotated[str, InjectedToolCallId],
        state: Annotated[dict[str, Any], InjectedState("bins")],
        raw: Annotated[str, InjectedToolArg],
        runtime: ToolRuntime[Any],
        bin_code: str,
    ) -> None: ...

    built = build(fn)
    assert list(built.input_schema["properties"]) == ["bin_code"]
    assert built.injected == frozenset(
        {"ctx", "maybe_ctx", "tenant", "call_id", "state", "raw", "runtime"}
    )
    assert built.context_params == ("ctx", "maybe_ctx")
    assert built.param_names[-1] == "bin_code"


def test_is_injected_annotation() -> None:
    assert is_injected_annotation(ToolContext)
    assert is_injected_annotation(ToolContext | None)
    assert is_injected_annotation(Annotated[int, Injected])
    assert is_injected_annotation(Annotated[int, InjectedToolArg])
    assert is_injected_annotation(Annotated[int, InjectedState()])
    assert is_injected_annotation(ToolRuntime)
    assert is_injected_annotation(ToolRuntime[int] | None)
    assert not is_injected_annotation(int)
    assert not is_injected_annotation(Annotated[int, "a description"])
    assert not is_injected_annotation(list[ToolContext])


def test_star_args_is_an_error() -> None:
    def fn(*codes: str) -> None: ...

    with pytest.raises(RegistrationError) as info:
        build_function_schema(fn)
    message = str(info.value)
    assert "test_star_args_is_an_error.<locals>.fn" in message
    assert "test_schema_callables.py:" in message
    assert "`*codes`" in message and "codes: list[str]" in message


def test_star_kwargs_is_an_error() -> None:
    def fn(a: int, **options: str) -> None: ...

    with pytest.raises(RegistrationError, match=r"`\*\*options`.*dict\[str, Any\]"):
        build_function_schema(fn)


def test_untyped_parameter_without_default_is_an_error() -> None:
    def fn(a: int, b) -> None:  # type: ignore[no-untyped-def]
        ...

    with pytest.raises(RegistrationError, match=r"parameter `b` has no type hint.*`b: str`"):
        build_function_schema(fn)


class Connection:
    pass


def test_type_without_schema_is_an_error() -> None:
    def fn(conn: Connection, n: int) -> None: ...

    with pytest.raises(RegistrationError) as info:
        build_function_schema(fn)
    message = str(info.value)
    assert "parameter `conn` (Connection) has no JSON Schema" in message
    assert "Injected" in message


def test_unresolvable_string_annotation_is_an_error() -> None:
    def fn(price: Decimal) -> None: ...

    with pytest.raises(RegistrationError, match=r"cannot be resolved.*'Decimal'.*TYPE_CHECKING"):
        build_function_schema(fn)


def test_param_descriptions_for_unknown_parameter_is_an_error() -> None:
    def fn(a: int, ctx: ToolContext) -> None: ...

    with pytest.raises(RegistrationError, match=r"names ctx.*Describe only the parameters a"):
        build_function_schema(fn, param_descriptions={"ctx": "x"})


def test_not_callable_is_an_error() -> None:
    with pytest.raises(RegistrationError, match="not callable"):
        build_function_schema(42)  # type: ignore[arg-type]
