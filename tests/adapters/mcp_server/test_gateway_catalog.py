"""The gateway re-serves remote resources and prompts under its namespaces: our own server and
the third-party server-everything behind ``toolkit serve --config``, read by the SDK client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
EVERYTHING = ROOT / ".peers/node_modules/.bin/mcp-server-everything"


async def test_remote_resources_and_prompts_are_served_under_the_servers_names(
    tmp_path: Path,
) -> None:
    shop = {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.support.served_resources"],
        "env": {"PYTHONPATH": str(ROOT)},
        "cwd": str(ROOT),
    }
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"shop": shop, "ev": {"command": str(EVERYTHING)}}})
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "--config", str(config)]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    async with Client(params, mode="legacy") as client:
        resources = [str(r.uri) for r in (await client.list_resources()).resources]
        templates = [
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        ]
        order = await client.read_resource("shop+orders://12")
        logo = await client.read_resource("shop+files://logo.png")
        first_ev = next(r for r in resources if r.startswith("ev+"))
        ev_read = await client.read_resource(first_ev)
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        review = await client.get_prompt("shop_review_order", {"order_id": "12"})
        simple = await client.get_prompt("ev_simple-prompt", {})
        # Completion is the remote server's own, through the gateway.
        ids = await client.complete(
            types.ResourceTemplateReference(uri="shop+orders://{order_id}"),
            {"name": "order_id", "value": "1"},
        )
        tones = await client.complete(
            types.PromptReference(name="shop_review_order"), {"name": "tone", "value": "s"}
        )
    assert {"shop+config://app", "shop+files://logo.png"} <= set(resources)
    assert "shop+orders://{order_id}" in templates
    [content] = order.contents
    assert isinstance(content, types.TextResourceContents)
    assert str(content.uri) == "shop+orders://12"
    assert json.loads(content.text) == {"id": 12, "status": "open"}
    assert isinstance(logo.contents[0], types.BlobResourceContents)
    assert ev_read.contents and str(ev_read.contents[0].uri) == first_ev
    assert [(a.name, a.required) for a in prompts["shop_review_order"].arguments or []] == [
        ("order_id", True),
        ("tone", False),
    ]
    assert "ev_simple-prompt" in prompts
    assert [(m.role, m.content.type) for m in review.messages] == [
        ("user", "text"),
        ("user", "resource"),
        ("assistant", "text"),
    ]
    assert simple.messages and simple.messages[0].content.type == "text"
    assert ids.completion.values == ["12"]
    assert tones.completion.values == ["short"]
