"""Remote resources and prompts through ``McpClientPool``, as LangChain documents and messages,
and with ``toolkit mcp resources|read|prompts|prompt``: against our own server (a subprocess)
and the third-party server-everything."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from typer.testing import CliRunner

from adapters.cli._mcp import mcp_app
from adapters.langchain import prompt_messages, resource_documents
from adapters.mcp_client import McpClientPool
from toolkit import ToolError

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]


def _ours() -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "adapters.mcp_server", "tests.support.served_resources"],
        "env": {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        "cwd": str(ROOT),
    }


async def test_the_pool_lists_and_reads_resources_and_gets_prompts() -> None:
    async with McpClientPool({"mcpServers": {"shop": _ours()}}) as pool:
        resources = await pool.resources("shop")
        templates = await pool.resource_templates("shop")
        order = await pool.read_resource("shop", "orders://12")
        logo = await pool.read_resource("shop", "files://logo.png")
        prompts = await pool.prompts("shop")
        review = await pool.get_prompt("shop", "review_order", {"order_id": "12"})
        with pytest.raises(ToolError) as missing:
            await pool.get_prompt("shop", "nope")
    assert [str(r.uri) for r in resources] == ["config://app", "files://logo.png"]
    assert [t.uri_template for t in templates] == ["orders://{order_id}"]
    assert [p.name for p in prompts] == ["describe_logo", "review_order"]
    # Read by LangChain as documents (text in page_content, binary kept in metadata) ...
    [document] = resource_documents(order, server="shop")
    assert json.loads(document.page_content) == {"id": 12, "status": "open"}
    assert document.metadata == {
        "uri": "orders://12",
        "mime_type": "application/json",
        "server": "shop",
    }
    [image] = resource_documents(logo)
    assert image.page_content == "" and image.metadata["blob"]
    # ... and prompts as messages, the assistant's as an AIMessage.
    messages = prompt_messages(review)
    assert [type(m) for m in messages] == [HumanMessage, HumanMessage, AIMessage]
    assert messages[0].content == "Review order 12, short."
    assert str(messages[1].content).startswith("[resource orders://12]")
    assert "No prompt is called 'nope'" in missing.value.message


async def test_the_pool_reads_server_everythings_resources_and_prompts(peers: Path) -> None:
    command = str(peers / "node_modules/.bin/mcp-server-everything")
    async with McpClientPool({"mcpServers": {"ev": {"command": command}}}) as pool:
        resources = await pool.resources("ev")
        first = await pool.read_resource("ev", str(resources[0].uri))
        prompts = await pool.prompts("ev")
        simple = await pool.get_prompt("ev", "simple-prompt")
        image_prompt = await pool.get_prompt("ev", "args-prompt", {"city": "Paris"})
    assert resources and first.contents
    assert resource_documents(first)[0].metadata["uri"] == str(resources[0].uri)
    assert {"simple-prompt", "args-prompt"} <= {p.name for p in prompts}
    assert all(isinstance(m, HumanMessage | AIMessage) for m in prompt_messages(simple))
    assert "Paris" in json.dumps([m.content for m in prompt_messages(image_prompt)])


def test_the_cli_lists_and_reads_resources_and_prompts(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"shop": _ours()}}))
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(mcp_app, [args[0], str(config), *args[1:]], terminal_width=200)
        assert result.exit_code == 0, result.output
        return result.output

    listed = run("resources", "shop")
    assert "config://app" in listed and "orders://{order_id}" in listed
    rows = {
        line.split("│")[1].strip(): line.split("│")[3].strip()
        for line in listed.splitlines()
        if line.count("│") == 5 and "://" in line
    }
    # The MIME type the server declared, or a dash where it declared none (never a blank).
    assert rows == {
        "config://app": "—",
        "files://logo.png": "image/png",
        "orders://{order_id}": "—",
    }
    assert run("read", "shop", "config://app").strip() == "tenant=acme\nregion=eu"
    assert "[binary files://logo.png: image/png, 69 bytes]" in run(
        "read", "shop", "files://logo.png"
    )
    assert "order_id*" in run("prompts", "shop")
    shown = run("prompt", "shop", "review_order", '{"order_id": "7", "tone": "detailed"}')
    assert "user: Review order 7, detailed." in shown
    assert "assistant: I will read the order first." in shown
    failed = runner.invoke(mcp_app, ["read", str(config), "shop", "orders://x"])
    assert failed.exit_code == 1 and "order_id" in failed.output
