"""``@mcp_resource`` and ``@mcp_prompt``: registration errors, reading, rendering, completion."""

from __future__ import annotations

import base64
from typing import Literal

import pytest

from toolkit import (
    ErrorCode,
    ImageContent,
    PromptMessage,
    RegistrationError,
    ToolError,
    ToolRegistry,
    mcp_prompt,
    mcp_resource,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_decorators_return_the_function_unchanged() -> None:
    @mcp_resource("orders://{order_id}")
    def order(order_id: int) -> str:
        return f"order {order_id}"

    @mcp_prompt
    def hello(name: str) -> str:
        return f"Hello {name}"

    assert order(3) == "order 3"
    assert hello("Ann") == "Hello Ann"


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("orders/{id}", "has no scheme"),
        ("orders://{id", "unbalanced brace"),
        ("orders://{id}/{id}", "uses {id} twice"),
        ("orders://{order-id}", "is not a supported expression"),
        ("orders://{?q}", "is not a supported expression"),
    ],
)
def test_a_bad_uri_template_is_refused_at_decoration(uri: str, says: str) -> None:
    with pytest.raises(RegistrationError, match=r"@mcp_resource\(") as caught:
        mcp_resource(uri)
    assert says in str(caught.value)


def test_a_template_variable_that_is_no_parameter_names_the_function_and_the_fix() -> None:
    @mcp_resource("orders://{order}")
    def by_id(order_id: int = 0) -> str:
        return ""

    with pytest.raises(RegistrationError) as caught:
        ToolRegistry().resources.register(by_id)
    message = str(caught.value)
    assert "by_id" in message and "{order}" in message
    assert "Add the parameter, or take it out of the template" in message


def test_a_required_parameter_the_template_does_not_fill_is_refused() -> None:
    @mcp_resource("orders://all")
    def orders(limit: int) -> str:
        return ""

    with pytest.raises(RegistrationError, match=r"limit without a default.*Add \{limit\}"):
        ToolRegistry().resources.register(orders)


def test_two_resources_with_one_uri_and_two_prompts_with_one_name_are_refused() -> None:
    registry = ToolRegistry()

    @mcp_resource("config://app")
    def first() -> str:
        return ""

    @mcp_resource("config://app")
    def second() -> str:
        return ""

    @mcp_prompt(name="ask")
    def ask_one() -> str:
        return ""

    @mcp_prompt(name="ask")
    def ask_two() -> str:
        return ""

    registry.resources.register(first)
    registry.prompts.register(ask_one)
    with pytest.raises(RegistrationError, match=r"already served by .*first"):
        registry.resources.register(second)
    with pytest.raises(RegistrationError, match=r"is taken by .*ask_one"):
        registry.prompts.register(ask_two)


def test_prompt_names_follow_the_tool_name_rule_and_completers_name_parameters() -> None:
    with pytest.raises(RegistrationError, match="is not valid"):
        mcp_prompt(name="review order")(lambda: "")

    @mcp_prompt(completions={"nme": lambda value, context: []})
    def greet(name: str) -> str:
        return name

    with pytest.raises(RegistrationError, match=r"name nme, which are not parameters.*name"):
        ToolRegistry().prompts.register(greet)


async def test_reading_text_binary_and_json_and_coercing_template_values() -> None:
    registry = ToolRegistry()

    @mcp_resource("config://app")
    def config() -> str:
        return "region=eu"

    @mcp_resource("files://{+path}")
    def file(path: str) -> bytes:
        return path.encode()

    @mcp_resource("orders://{order_id}")
    def order(order_id: int) -> dict[str, int]:
        return {"id": order_id}

    for fn in (config, file, order):
        registry.resources.register(fn)
    [text] = await registry.resources.read("config://app")
    [blob] = await registry.resources.read("files://a/b%20c.txt")
    [data] = await registry.resources.read("orders://12")
    assert (text.text, text.mime_type) == ("region=eu", "text/plain")
    assert blob.blob is not None and base64.b64decode(blob.blob) == b"a/b c.txt"
    assert blob.mime_type == "application/octet-stream"
    assert (data.text, data.mime_type) == ('{"id": 12}', "application/json")
    assert [r.uri for r in registry.resources.resources()] == ["config://app"]
    assert [r.uri for r in registry.resources.templates()] == [
        "files://{+path}",
        "orders://{order_id}",
    ]


async def test_read_failures_carry_codes_and_say_what_to_do() -> None:
    registry = ToolRegistry()

    @mcp_resource("orders://{order_id}")
    def order(order_id: int) -> str:
        raise KeyError(order_id)

    registry.resources.register(order)
    with pytest.raises(ToolError) as missing:
        await registry.resources.read("customers://1")
    with pytest.raises(ToolError) as invalid:
        await registry.resources.read("orders://twelve")
    with pytest.raises(ToolError) as failed:
        await registry.resources.read("orders://1")
    assert missing.value.code is ErrorCode.NOT_FOUND
    assert "List resources and templates" in missing.value.message
    assert invalid.value.code is ErrorCode.INVALID_PARAMS
    assert "order_id" in invalid.value.message
    assert failed.value.code is ErrorCode.EXECUTION_ERROR
    assert "Traceback" not in failed.value.message


async def test_prompts_render_strings_content_and_messages_and_list_their_arguments() -> None:
    registry = ToolRegistry()

    @mcp_prompt
    def review(order_id: str, tone: Literal["short", "long"] = "short") -> list[object]:
        """Review an order.

        Args:
            order_id: The order to review.
        """
        return [
            f"Review {order_id}, {tone}.",
            ImageContent(data="AA==", mime_type="image/png"),
            PromptMessage("assistant", ImageContent(data="AA==", mime_type="image/png")),
        ]

    prompt = registry.prompts.register(review)
    messages = await registry.prompts.render("review", {"order_id": "7"})
    assert [(m.role, m.content.type) for m in messages] == [
        ("user", "text"),
        ("user", "image"),
        ("assistant", "image"),
    ]
    assert [(a.name, a.description, a.required) for a in prompt.arguments] == [
        ("order_id", "The order to review.", True),
        ("tone", None, False),
    ]
    assert prompt.description == "Review an order."
    assert await prompt.runner.complete("tone", "l", {}) == ["long"]
    with pytest.raises(ToolError) as missing:
        await registry.prompts.render("review", {})
    with pytest.raises(ToolError) as unknown:
        await registry.prompts.render("review", {"order_id": "7", "mood": "x"})
    with pytest.raises(ToolError) as absent:
        await registry.prompts.render("reveiw", {})
    assert missing.value.code is ErrorCode.INVALID_PARAMS
    assert "has no argument mood; its arguments are: order_id, tone" in unknown.value.message
    assert absent.value.code is ErrorCode.NOT_FOUND and "review" in absent.value.message


async def test_a_prompt_returning_something_else_says_what_a_prompt_returns() -> None:
    registry = ToolRegistry()

    @mcp_prompt
    def broken() -> object:
        return 42

    registry.prompts.register(broken)
    with pytest.raises(ToolError, match="returned a int; a prompt returns str"):
        await registry.prompts.render("broken", {})


def test_scan_finds_resources_and_prompts_of_a_module_and_of_an_instance() -> None:
    registry = ToolRegistry()
    registry.scan("tests.support.served_resources")
    assert [r.uri for r in registry.resources] == [
        "config://app",
        "files://logo.png",
        "orders://{order_id}",
    ]
    assert [p.name for p in registry.prompts] == ["describe_logo", "review_order"]

    class Shop:
        def __init__(self) -> None:
            self.motto = "cheap"

        @mcp_resource("shop://motto")
        def get_motto(self) -> str:
            return self.motto

        @mcp_prompt
        def pitch(self, product: str) -> str:
            return f"Sell {product}, {self.motto}."

    other = ToolRegistry()
    other.scan(Shop())
    assert [r.uri for r in other.resources] == ["shop://motto"]
    assert list(other.prompts.get("pitch").runner.parameters) == ["product"]  # type: ignore[union-attr]


async def test_a_slow_sync_resource_times_out() -> None:
    import time

    registry = ToolRegistry()

    @mcp_resource("slow://thing", timeout=0.2)
    def slow() -> str:
        time.sleep(2)
        return "late"

    registry.resources.register(slow)
    with pytest.raises(ToolError) as caught:
        await registry.resources.read("slow://thing")
    assert caught.value.code is ErrorCode.TIMEOUT
    assert "did not finish within 0.2 seconds" in caught.value.message


def test_a_failing_change_listener_neither_undoes_the_change_nor_stops_the_others() -> None:
    from toolkit.catalog.prompts import PromptRegistry

    def greet(name: str) -> str:
        """Greet someone.

        Args:
            name: Who to greet.
        """
        return f"Hello {name}"

    prompts = PromptRegistry()
    heard: list[str] = []

    def broken() -> None:
        raise RuntimeError("listener bug")

    prompts.on_change(broken)
    prompts.on_change(lambda: heard.append("changed"))
    prompts.register(greet)
    assert [p.name for p in prompts] == ["greet"]
    assert heard == ["changed"]
    prompts.remove("greet")
    assert len(prompts) == 0 and heard == ["changed", "changed"]
