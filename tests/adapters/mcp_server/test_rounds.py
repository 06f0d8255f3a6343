"""A tool's questions to a 2026-07-28 client: the call ends with the question, the client asks
its user and calls again, and every answer so far reaches the tool (sealed, not forgeable)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from adapters.mcp_server import build_server
from toolkit import ToolContext, ToolRegistry, mcp_tool

pytestmark = pytest.mark.anyio

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
SIZE = {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}
RUNS: list[str] = []


@mcp_tool
async def order_shirt(context: ToolContext) -> str:
    """Order a shirt, asking for the name to print and the size."""
    RUNS.append("run")
    name = await context.elicit("Which name should be printed?", NAME)
    size = await context.elicit("Which size?", SIZE)
    if not (name.accepted and size.accepted):
        return "no shirt ordered"
    return f"shirt for {name.content['name']} in size {size.content['size']}"


def _registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(order_shirt)
    return registry


async def test_each_answer_comes_back_and_the_tool_finishes() -> None:
    asked: list[str] = []

    async def answer(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        content: dict[str, Any] = {"name": "Ada"} if "name" in params.message else {"size": 42}
        return types.ElicitResult(action="accept", content=content)

    RUNS.clear()
    async with Client(build_server(_registry()), elicitation_callback=answer) as client:
        assert client.session.protocol_version == "2026-07-28"
        result = await client.call_tool("order_shirt", {})
    assert not result.is_error
    assert result.content[0].text == "shirt for Ada in size 42"  # type: ignore[union-attr]
    assert asked == ["Which name should be printed?", "Which size?"]  # each asked once
    assert len(RUNS) == 3  # two rounds ended by a question, then the full run


async def test_a_decline_reaches_the_tool() -> None:
    async def decline(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async with Client(build_server(_registry()), elicitation_callback=decline) as client:
        result = await client.call_tool("order_shirt", {})
    assert result.content[0].text == "no shirt ordered"  # type: ignore[union-attr]


async def test_a_forged_request_state_is_refused() -> None:
    forged = '{"elicit-0": {"action": "accept", "content": {"name": "Mallory"}}}'
    async with Client(build_server(_registry())) as client:
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool(
                "order_shirt", {}, request_state=forged, allow_input_required=True
            )


async def test_workers_sharing_the_key_continue_each_others_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLKIT_REQUEST_STATE_KEY", "k" * 43)
    first, second = build_server(_registry()), build_server(_registry())  # two workers
    name = types.ElicitResult(action="accept", content={"name": "Ada"})
    size = types.ElicitResult(action="accept", content={"size": 40})

    async def unused(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        raise AssertionError("answered by hand below")  # declares the capability

    async with (
        Client(first, elicitation_callback=unused) as a,
        Client(second, elicitation_callback=unused) as b,
    ):
        one = await a.session.call_tool("order_shirt", {}, allow_input_required=True)
        assert isinstance(one, types.InputRequiredResult) and one.input_requests
        two = await b.session.call_tool(
            "order_shirt", {}, input_responses={"elicit-0": name}, allow_input_required=True
        )
        assert isinstance(two, types.InputRequiredResult) and two.request_state
        done = await a.session.call_tool(
            "order_shirt",
            {},
            input_responses={"elicit-1": size},
            request_state=two.request_state,
            allow_input_required=True,
        )
    assert isinstance(done, types.CallToolResult)
    assert done.content[0].text == "shirt for Ada in size 40"  # type: ignore[union-attr]


async def test_sampling_is_asked_the_same_way() -> None:
    @mcp_tool
    async def haiku(topic: str, context: ToolContext) -> str:
        """Write a haiku with the client's model.

        Args:
            topic: What about.
        """
        return await context.sample(f"A haiku about {topic}", max_tokens=60)

    async def model(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        prompt = params.messages[-1].content
        assert isinstance(prompt, types.TextContent)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"[{prompt.text}]"),
            model="stub",
        )

    registry = ToolRegistry()
    registry.register(haiku)
    async with Client(build_server(registry), sampling_callback=model) as client:
        result = await client.call_tool("haiku", {"topic": "bins"})
    assert result.content[0].text == "[A haiku about bins]"  # type: ignore[union-attr]
