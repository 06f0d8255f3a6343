"""Our client answering a real server's requests: elicitation, sampling, logging, rich content.

The peer is @modelcontextprotocol/server-everything over stdio; it lists its elicitation and
sampling tools only to clients that declared those capabilities.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters.mcp_client import McpClientPool, with_defaults
from adapters.mcp_client._handlers import client_options
from toolkit.calls.interaction import Elicitation, SamplingMessage
from toolkit.result import ImageContent

pytestmark = pytest.mark.anyio


def _everything(peers: Path) -> dict[str, Any]:
    return {"ev": {"command": str(peers / "node_modules/.bin/mcp-server-everything")}}


async def test_elicitation_and_sampling_are_answered_by_the_pools_handlers(peers: Path) -> None:
    asked: list[tuple[str, list[str]]] = []
    prompts: list[str] = []

    async def ask_user(server: str, message: str, schema: Mapping[str, Any]) -> Elicitation:
        asked.append((server, sorted(schema.get("properties", {}))))
        return Elicitation("accept", {"name": "Ada"})

    async def model(
        server: str, messages: Sequence[SamplingMessage], system: str | None, max_tokens: int
    ) -> str:
        prompts.append(messages[-1].text)
        return "forty-two"

    async with McpClientPool(_everything(peers), elicitation=ask_user, sampling=model) as pool:
        elicited = await pool.call("ev", "trigger-elicitation-request", {})
        sampled = await pool.call("ev", "trigger-sampling-request", {"prompt": "meaning?"})
    assert asked and asked[0][0] == "ev" and "name" in asked[0][1]
    assert '"name": "Ada"' in elicited.content
    # Fields the user left out keep the defaults the server's schema gave them (SEP-1034).
    assert '"integer": 42' in elicited.content
    assert prompts == ["Resource trigger-sampling-request context: meaning?"]
    assert "forty-two" in sampled.content


async def test_without_handlers_the_server_sees_no_such_capability(peers: Path) -> None:
    async with McpClientPool(_everything(peers)) as pool:
        names = [tool.name for tool in await pool.tools("ev", prefix="")]
    assert "get-tiny-image" in names
    assert "trigger-elicitation-request" not in names
    assert "trigger-sampling-request" not in names


async def test_remote_log_messages_go_to_python_logging(
    peers: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolkit.remote.ev")
    async with McpClientPool(_everything(peers)) as pool:
        await pool.call("ev", "toggle-simulated-logging", {})
        with anyio.fail_after(15):
            while not any(r.name == "toolkit.remote.ev" for r in caplog.records):
                await anyio.sleep(0.1)
    record = next(r for r in caplog.records if r.name == "toolkit.remote.ev")
    assert "message" in record.getMessage().lower()


async def test_images_from_a_remote_tool_arrive_as_image_blocks(peers: Path) -> None:
    async with McpClientPool(_everything(peers)) as pool:
        result = await pool.call("ev", "get-tiny-image", {})
    images = [b for b in result.blocks if isinstance(b, ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert "image" in result.content.lower()


def test_the_client_introduces_itself_as_mcp_toolkit() -> None:
    info = client_options("ev", None)["client_info"]
    assert info.name == "mcp-toolkit"
    assert info.version


def test_defaults_fill_only_what_the_user_left_out() -> None:
    schema = {"properties": {"a": {"default": 1}, "b": {"default": 2}, "c": {}}}
    assert with_defaults({"a": 5}, schema) == {"a": 5, "b": 2}


async def test_remote_progress_reaches_the_callers_tool_context(peers: Path) -> None:
    from toolkit.context import ToolContext

    updates: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total))

    context = ToolContext(tool="trigger-long-running-operation", progress=on_progress)
    async with McpClientPool(_everything(peers)) as pool:
        await pool.call(
            "ev", "trigger-long-running-operation", {"duration": 0.4, "steps": 4}, context
        )
    assert updates == [(1, 4), (2, 4), (3, 4), (4, 4)]


async def test_remote_resources_reach_a_model_as_text_it_can_send(peers: Path) -> None:
    from langchain_core.messages import ToolMessage
    from langchain_openai.chat_models.base import _convert_message_to_dict

    from adapters.langchain.messages import result_content

    async with McpClientPool(_everything(peers)) as pool:
        links = await pool.call("ev", "get-resource-links", {"count": 2})
        image = await pool.call("ev", "get-tiny-image", {})
    link_blocks = result_content(links)
    assert isinstance(link_blocks, list)
    assert {b["type"] for b in link_blocks if isinstance(b, dict)} == {"text"}
    assert any("demo://resource/" in str(b) for b in link_blocks)
    image_blocks = result_content(image)
    assert isinstance(image_blocks, list)
    assert [b["type"] for b in image_blocks if isinstance(b, dict)] == ["text", "image", "text"]
    # What langchain-openai sends for it: no block type it refuses.
    sent = _convert_message_to_dict(ToolMessage(content=link_blocks, tool_call_id="c1"))
    assert sent["role"] == "tool"


async def test_content_for_the_user_only_is_not_sent_to_the_model(peers: Path) -> None:
    from adapters.langchain.messages import result_content
    from adapters.mcp_wire import mcp_content

    async with McpClientPool(_everything(peers)) as pool:
        debug = await pool.call(
            "ev", "get-annotated-message", {"messageType": "debug", "includeImage": True}
        )
    assert [(b.type, b.audience) for b in debug.blocks] == [
        ("text", ("assistant",)),
        ("image", ("user",)),
    ]
    for_model = result_content(debug)
    assert isinstance(for_model, list)
    assert [b["type"] for b in for_model if isinstance(b, dict)] == ["text"]
    # Through a gateway the annotations travel on unchanged.
    assert [b.get("annotations") for b in mcp_content(debug)] == [
        {"audience": ["assistant"], "priority": 0.3},
        {"audience": ["user"], "priority": 0.5},
    ]
