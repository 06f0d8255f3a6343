"""Resources, prompts and completion served by our server, read by the SDK's own client over
stdio (``toolkit serve`` as a subprocess) and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from tests.support import served_resources

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed"),
]

ROOT = Path(__file__).resolve().parents[3]


def _stdio() -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "tests.support.served_resources"]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))


async def _everything(client: Client) -> dict[str, Any]:
    """Every resource and prompt request, with what came back."""
    order_ref = types.ResourceTemplateReference(uri="orders://{order_id}")
    prompt_ref = types.PromptReference(name="review_order")
    return {
        "resources": (await client.list_resources()).resources,
        "templates": (await client.list_resource_templates()).resource_templates,
        "config": (await client.read_resource("config://app")).contents,
        "logo": (await client.read_resource("files://logo.png")).contents,
        "order": (await client.read_resource("orders://7")).contents,
        "prompts": (await client.list_prompts()).prompts,
        "review": await client.get_prompt("review_order", {"order_id": "7", "tone": "detailed"}),
        "logo_prompt": await client.get_prompt("describe_logo", {"style": "plain"}),
        "ids": (await client.complete(order_ref, {"name": "order_id", "value": "1"})).completion,
        "tones": (await client.complete(prompt_ref, {"name": "tone", "value": "d"})).completion,
    }


def _check(seen: dict[str, Any]) -> None:
    assert [(r.uri, r.name, r.mime_type) for r in seen["resources"]] == [
        ("config://app", "app_config", None),
        ("files://logo.png", "logo", "image/png"),
    ]
    assert seen["resources"][0].title == "App config"
    assert seen["resources"][0].description == "The application's settings."
    assert [t.uri_template for t in seen["templates"]] == ["orders://{order_id}"]
    [config] = seen["config"]
    assert isinstance(config, types.TextResourceContents)
    assert (config.text, config.mime_type) == ("tenant=acme\nregion=eu", "text/plain")
    [logo] = seen["logo"]
    assert isinstance(logo, types.BlobResourceContents)
    assert logo.blob == base64.b64encode(base64.b64decode(served_resources.PIXEL_PNG)).decode()
    [order] = seen["order"]
    assert isinstance(order, types.TextResourceContents)
    assert (order.uri, order.text) == ("orders://7", '{"id": 7, "status": "shipped"}')
    prompts = {p.name: p for p in seen["prompts"]}
    review = prompts["review_order"]
    assert review.title == "Review an order"
    assert [(a.name, a.required, a.description) for a in review.arguments or []] == [
        ("order_id", True, "The order to review."),
        ("tone", False, "How long the review should be."),
    ]
    messages = seen["review"].messages
    assert [(m.role, m.content.type) for m in messages] == [
        ("user", "text"),
        ("user", "resource"),
        ("assistant", "text"),
    ]
    assert messages[0].content.text == "Review order 7, detailed."
    assert str(messages[1].content.resource.uri) == "orders://7"
    image = seen["logo_prompt"].messages[1].content
    assert isinstance(image, types.ImageContent) and image.mime_type == "image/png"
    assert seen["ids"].values == ["12"]
    assert seen["tones"].values == ["detailed"]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_resources_prompts_and_completion_over_stdio(mode: str) -> None:
    async with Client(_stdio(), mode=mode) as client:
        caps = client.server_capabilities if mode == "legacy" else None
        seen = await _everything(client)
        with pytest.raises(MCPError) as missing:
            await client.read_resource("orders://99")
        with pytest.raises(MCPError) as wrong:
            await client.read_resource("orders://seven")
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("nope", {})
    _check(seen)
    if caps is not None:
        assert caps.resources is not None and caps.resources.subscribe
        assert caps.prompts is not None and caps.completions is not None
    # A function's own failure is masked like a tool's; bad input and unknown names say why.
    assert missing.value.code == types.INTERNAL_ERROR
    assert "KeyError" in missing.value.message or "failed" in missing.value.message
    assert wrong.value.code == types.INVALID_PARAMS and "order_id" in wrong.value.message
    assert unknown.value.code == types.INVALID_PARAMS
    assert "describe_logo, review_order" in unknown.value.message


def _http_client(base_url: str, mode: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(timeout=httpx2.Timeout(20))
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode=mode, **kwargs)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_resources_prompts_and_completion_over_http(mode: str) -> None:
    server = build_server(served_resources.registry, name="shop")
    with serving(http_app(server)) as url:
        async with _http_client(url, mode) as client:
            seen = await _everything(client)
    _check(seen)


async def test_a_subscribed_handshake_client_hears_of_updates_until_it_unsubscribes() -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    server = build_server(served_resources.registry, name="shop")
    with serving(http_app(server, stateless=False)) as url:
        async with _http_client(url, "legacy", message_handler=on_message) as client:
            await client.subscribe_resource("orders://7")
            await client.call_tool("touch_order", {"order_id": 12})  # not subscribed
            await client.call_tool("touch_order", {"order_id": 7})
            with anyio.fail_after(10):
                while not updates:
                    await anyio.sleep(0.02)
            await client.unsubscribe_resource("orders://7")
            await client.call_tool("touch_order", {"order_id": 7})
            await client.call_tool("touch_order", {"order_id": 12})
            await anyio.sleep(0.3)
            with pytest.raises(MCPError) as unknown:
                await client.subscribe_resource("customers://1")
    assert updates == ["orders://7"]
    assert unknown.value.code == types.INVALID_PARAMS


async def test_a_listening_2026_client_hears_of_updates_to_the_uris_it_named() -> None:
    server = build_server(served_resources.registry, name="shop")
    with serving(http_app(server)) as url:
        async with _http_client(url, "auto") as client:
            async with client.listen(resource_subscriptions=["orders://7"]) as subscription:
                await client.call_tool("touch_order", {"order_id": 12})
                await client.call_tool("touch_order", {"order_id": 7})
                with anyio.fail_after(10):
                    event = await subscription.__anext__()
    assert getattr(event, "uri", None) == "orders://7"
