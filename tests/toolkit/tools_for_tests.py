"""Small tools used across the core tests (importable, so scanning can find them)."""

from __future__ import annotations

import time
from typing import Annotated

import anyio
from pydantic import BaseModel, Field

from toolkit import Injected, ToolContext, ToolError, mcp_tool


class Player(BaseModel):
    player_id: int
    name: str


@mcp_tool
def add(a: int, b: int = 1) -> int:
    """Add two numbers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


@mcp_tool
async def find_player(player_id: Annotated[int, Field(ge=1)], ctx: ToolContext) -> Player:
    """Find a player by id.

    Args:
        player_id: The player's id.
    """
    if player_id == 404:
        raise ToolError(f"Player {player_id} does not exist.")
    return Player(player_id=player_id, name=str(ctx.get("tenant", "anon")))


@mcp_tool
def tag_items(items: list[str], labels: dict[str, int]) -> dict[str, int]:
    """Count items.

    Args:
        items: Item names.
        labels: Label weights.
    """
    return {i: labels.get(i, 0) for i in items}


@mcp_tool
def crash(message: str) -> str:
    """Always fails with a plain exception.

    Args:
        message: The exception text.
    """
    raise ValueError(message)


@mcp_tool
def login(user: str, password: str) -> str:
    """Fails and echoes the password in the exception.

    Args:
        user: User name.
        password: The password.
    """
    raise PermissionError(f"bad credentials {user}:{password}")


@mcp_tool(timeout=0.2)
async def slow_async(seconds: float = 5.0) -> str:
    """Sleeps (async).

    Args:
        seconds: How long.
    """
    await anyio.sleep(seconds)
    return "done"


@mcp_tool(timeout=0.2)
def slow_sync(seconds: float = 1.0) -> str:
    """Sleeps (blocking).

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    return "done"


@mcp_tool
def whoami(user: Annotated[str, Injected], greeting: str = "hi") -> str:
    """Greets the injected user.

    Args:
        greeting: The greeting.
    """
    return f"{greeting} {user}"


@mcp_tool(destructive=True)
def wipe(scope: str) -> str:
    """Deletes everything in a scope.

    Args:
        scope: What to wipe.
    """
    return f"wiped {scope}"


class Flaky:
    """Fails ``failures`` times with ConnectionError, then succeeds."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    @mcp_tool(retries=3)
    def fetch(self, key: str) -> str:
        """Fetch a value from a flaky backend.

        Args:
            key: The key.
        """
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError("backend busy")
        return f"value of {key}"
