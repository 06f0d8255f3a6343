"""What a test client heard: ``list_changed`` notifications counted per list, in both
protocol generations (a 2026-07-28 client hears them on a listen stream)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import mcp_types as types
from mcp import Client

_KINDS = {
    types.ToolListChangedNotification: "tools",
    types.ResourceListChangedNotification: "resources",
    types.PromptListChangedNotification: "prompts",
}


class Heard:
    """A client's message handler counting the ``list_changed`` notifications per list."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._news = anyio.Event()

    async def __call__(self, message: object) -> None:
        kind = _KINDS.get(type(message))
        if kind is not None:
            self.counts[kind] += 1
            self._news.set()
            self._news = anyio.Event()

    async def until(self, kind: str, count: int = 1) -> None:
        with anyio.fail_after(5):
            while self.counts[kind] < count:
                await self._news.wait()


@asynccontextmanager
async def listening(client: Client, mode: str) -> AsyncIterator[None]:
    """A modern client hears changes on a listen stream; a legacy one needs nothing."""
    async with AsyncExitStack() as stack:
        if mode == "auto":
            await stack.enter_async_context(
                client.listen(
                    tools_list_changed=True, resources_list_changed=True, prompts_list_changed=True
                )
            )
        else:
            await client.list_tools()  # the handshake is complete once a request was answered
        yield
