"""The core under hostile input and faults: nothing escapes ``registry.call``, nothing leaks."""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel

from toolkit import (
    CallOptions,
    ErrorCode,
    ExceptionProcessor,
    FunctionTool,
    ToolRegistry,
    ToolResult,
)

# -- hostile arguments (never an exception, always PARSE_ERROR / INVALID_PARAMS) -------------


def _echo(text: str = "", n: int = 0, items: list[Any] | None = None) -> str:
    """Echo.

    Args:
        text: Text.
        n: A number.
        items: Anything.
    """
    return f"{text}{n}{len(items or [])}"


@pytest.fixture
def echo() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(_echo, name="echo")
    return registry


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: list[tuple[str, Any, ErrorCode]] = [
    ("huge int in JSON", '{"n": ' + "9" * 5000 + "}", ErrorCode.PARSE_ERROR),
    ("deep JSON", '{"items": ' + "[" * 100_000 + "]" * 100_000 + "}", ErrorCode.INVALID_PARAMS),
    ("bytes not UTF-8", b'{"text": "\xff\xfe"}', ErrorCode.PARSE_ERROR),
    ("deep dict", {"items": _deep(50_000)}, ErrorCode.INVALID_PARAMS),
    ("huge int as value", {"text": 10**5000}, ErrorCode.INVALID_PARAMS),
    ("a JSON list", "[1, 2]", ErrorCode.PARSE_ERROR),
]


@pytest.mark.parametrize(("label", "arguments", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_arguments_come_back_as_results(
    echo: ToolRegistry, label: str, arguments: Any, code: ErrorCode
) -> None:
    result = echo.call_sync("echo", arguments)
    assert result.is_error and result.code is code, (label, result.content)
    assert result.record is not None and result.record.outcome == "error"
    str(result.record)  # a record of hostile arguments still prints


@pytest.mark.anyio
@pytest.mark.parametrize(("label", "arguments", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
async def test_hostile_arguments_come_back_as_results_async(
    echo: ToolRegistry, label: str, arguments: Any, code: ErrorCode
) -> None:
    result = await echo.call("echo", arguments)
    assert result.is_error and result.code is code, (label, result.content)


# -- secrets -------------------------------------------------------------------------------------


class Credentials(BaseModel):
    user: str
    api_key: str


@dataclasses.dataclass
class Account:
    name: str
    secret_token: str


def connect(creds: Credentials) -> str:
    """Connect.

    Args:
        creds: Who connects.
    """
    raise RuntimeError(f"the server refused key {creds.api_key} for {creds.user}")


def open_account(account: Account) -> str:
    """Open an account.

    Args:
        account: The account.
    """
    raise RuntimeError(f"cannot open {account.name} with {account.secret_token}")


def fetch(url: str) -> str:
    """Fetch a URL.

    Args:
        url: Where.
    """
    raise ConnectionError(
        f"GET {url} failed: Authorization: Bearer abcdefgh12345678 rejected, "
        "password=hunter22, key AKIAABCDEFGHIJKLMNOP"
    )


def login(user: str, password: str) -> str:
    """Log in.

    Args:
        user: Name.
        password: Password.
    """
    return user


@pytest.fixture
def leaky() -> ToolRegistry:
    registry = ToolRegistry()
    for fn in (connect, open_account, fetch, login):
        registry.register(fn)
    return registry


def test_secret_fields_of_model_and_dataclass_params_are_masked(leaky: ToolRegistry) -> None:
    result = leaky.call_sync("connect", {"creds": {"user": "bob", "api_key": "zq-77-plain"}})
    assert result.is_error and "zq-77-plain" not in result.content and "bob" in result.content
    assert result.record is not None and result.record.arguments["creds"]["api_key"] == "***"
    result = leaky.call_sync("open_account", {"account": {"name": "a1", "secret_token": "tk-99"}})
    assert "tk-99" not in result.content and "a1" in result.content


def test_secrets_in_exception_text_are_scrubbed(leaky: ToolRegistry) -> None:
    result = leaky.call_sync("fetch", {"url": "https://app:pa55word@example.test/x"})
    for secret in ("pa55word", "abcdefgh12345678", "hunter22", "AKIAABCDEFGHIJKLMNOP"):
        assert secret not in result.content, secret
    assert "https://app:***@example.test/x" in result.content


def test_arguments_that_fail_to_parse_are_still_masked_in_records(leaky: ToolRegistry) -> None:
    broken = '{"user": "bob", "password": "hunter22"'  # no closing brace
    result = leaky.call_sync("login", broken)
    assert result.code is ErrorCode.PARSE_ERROR
    assert result.record is not None and "hunter22" not in str(result.record.arguments)
    result = leaky.call_sync("login", {"user": 5, "password": "hunter22", "extra": 1})
    assert result.code is ErrorCode.INVALID_PARAMS
    assert result.record is not None and result.record.arguments["password"] == "***"


def test_logged_tracebacks_are_scrubbed(leaky: ToolRegistry, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="toolkit.calls"):
        leaky.call_sync("connect", {"creds": {"user": "bob", "api_key": "zq-77-plain"}})
        leaky.call_sync("fetch", {"url": "https://example.test"})
    assert "Traceback" in caplog.text
    for secret in ("zq-77-plain", "abcdefgh12345678", "hunter22"):
        assert secret not in caplog.text, secret


def test_the_scrubber_is_settable() -> None:
    processor = ExceptionProcessor(scrubber=lambda text: text.replace("ACME", "[org]"))
    registry = ToolRegistry(processor=processor)
    registry.register(fetch)
    result = registry.call_sync("fetch", {"url": "https://ACME.test"})
    assert "[org]" in result.content and "ACME" not in result.content
    bare = ToolRegistry(processor=ExceptionProcessor(scrubber=None))
    bare.register(fetch)
    assert "hunter22" in bare.call_sync("fetch", {"url": "x"}).content


# -- default timeout for local tools ---------------------------------------------------------


def nap(seconds: float) -> str:
    """Sleep.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "rested"


def test_local_tools_have_a_default_timeout() -> None:
    assert ToolRegistry().settings.timeout == 300.0
    registry = ToolRegistry(timeout=0.2)
    registry.register(nap)
    result = registry.call_sync("nap", {"seconds": 3})
    assert result.code is ErrorCode.TIMEOUT, result.content
    assert registry.call_sync("nap", {"seconds": 0}).content == "rested"


@pytest.mark.anyio
async def test_default_timeout_async_path_and_per_call_override() -> None:
    registry = ToolRegistry(timeout=0.2)
    registry.register(nap)
    assert (await registry.call("nap", {"seconds": 3})).code is ErrorCode.TIMEOUT
    quick = CallOptions(timeout=0.1)
    assert ToolRegistry(timeout=None).settings.timeout is None
    unlimited = ToolRegistry(timeout=None)
    unlimited.register(nap)
    assert (await unlimited.call("nap", {"seconds": 0.3})).content == "rested"
    assert (await unlimited.call("nap", {"seconds": 3}, options=quick)).code is ErrorCode.TIMEOUT


# -- BaseException from a tool -----------------------------------------------------------------


class Abort(BaseException):
    """A BaseException a library might raise."""


def quits(how: str) -> str:
    """Exit the process, or raise a BaseException.

    Args:
        how: "exit" or "abort".
    """
    if how == "exit":
        raise SystemExit(3)
    raise Abort("stop everything")


@pytest.mark.anyio
async def test_system_exit_from_a_tool_is_a_failed_call() -> None:
    registry = ToolRegistry()
    registry.register(quits)
    for how in ("exit", "abort"):
        for result in (
            registry.call_sync("quits", {"how": how}),
            await registry.call("quits", {"how": how}),
        ):
            assert result.is_error and result.code is ErrorCode.EXECUTION_ERROR, result.content


# -- TypedDict on 3.11, reprs that never raise ---------------------------------------------------


class Address(TypedDict):
    """A postal address."""

    street: str
    zip: int


def ship(to: Address, alternates: list[Address] | None = None) -> Address:
    """Ship a parcel.

    Args:
        to: Where to.
        alternates: Other places.
    """
    return to


def test_standard_typeddict_parameters_work() -> None:
    registry = ToolRegistry()
    registry.register(ship)
    props = registry.get("ship").spec.input_schema["properties"]
    assert props["to"]["required"] == ["street", "zip"]
    ok = registry.call_sync("ship", {"to": {"street": "Main 1", "zip": 1010}})
    assert not ok.is_error and ok.structured == {"street": "Main 1", "zip": 1010}
    bad = registry.call_sync("ship", {"to": {"street": "Main 1"}})
    assert bad.code is ErrorCode.INVALID_PARAMS and "to.zip" in bad.content


class Opaque:
    """Not a JSON type."""


def broken(thing: Opaque) -> str:
    """Has a parameter without a JSON Schema.

    Args:
        thing: Something.
    """
    return "never"


def test_reprs_never_raise_and_show_the_broken_tools_error() -> None:
    registry = ToolRegistry()
    registry.register(ship)
    registry.add(FunctionTool(broken))  # check() passes: the schema fails only when built
    html = registry._repr_html_()
    assert "ship" in html and "broken" in html and "cannot be described" in html
    assert "Opaque" in html
    assert "cannot be shown" in FunctionTool(broken)._repr_html_()
    assert "broken" in repr(registry) and "broken" in repr(registry.get("broken"))
    weird = ToolResult(content="x", structured={1j: object()}, tool="w")
    assert weird._repr_html_()


def test_result_repr_survives_values_that_cannot_be_printed() -> None:
    result = ToolResult(content="big", structured={"n": 10**5000}, tool="t")
    text = repr(result)
    assert "cannot be shown" in text and "content='big'" in text
    assert "cannot be shown" in result._repr_html_()


def test_records_of_odd_python_arguments_never_fail(echo: ToolRegistry) -> None:
    result = echo.call_sync("echo", {1: "x", "text": "a"})  # type: ignore[dict-item]
    assert result.is_error and result.code is ErrorCode.INVALID_PARAMS
    assert result.record is not None
