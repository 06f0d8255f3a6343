"""Fixtures for the LangGraph adapter: a validating OpenAI stub and a small tool registry."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import pytest
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import InjectedState

from adapters.testing import OpenAIStub
from toolkit import ToolContext, ToolError, ToolRegistry, mcp_tool


@mcp_tool(read_only=True)
def get_bin(code: str) -> dict:
    """Look up a storage bin.

    Args:
        code: The bin code, e.g. B-1.
    """
    if code == "B-404":
        raise ToolError("Bin B-404 does not exist. Call list_bins to see valid codes.")
    return {"code": code, "items": 3}


@mcp_tool(destructive=True)
def delete_bin(code: str) -> str:
    """Delete a storage bin and everything in it.

    Args:
        code: The bin code.
    """
    return f"deleted {code}"


@mcp_tool
def whoami(note: str, user: Annotated[str, InjectedState("user")], ctx: ToolContext) -> str:
    """Say who is asking.

    Args:
        note: A note to echo.
    """
    return f"{note}: user={user} tenant={ctx.get('tenant')}"


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()
    for fn in (get_bin, delete_bin, whoami):
        reg.register(fn)
    return reg


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def chat(stub: OpenAIStub, *, streaming: bool = False) -> ChatOpenAI:
    """The real OpenAI chat model, pointed at the stub."""
    return ChatOpenAI(
        base_url=stub.url,
        api_key="test-key",
        model="gpt-stub",
        streaming=streaming,
        stream_usage=streaming,
        max_retries=0,
    )
