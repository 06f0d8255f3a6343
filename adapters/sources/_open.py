"""Opening the sources of :data:`~adapters.sources.SOURCES` into one registry, and checking
them without connecting."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from adapters.sources._table import SOURCES, Source, Sources
from toolkit.registry import ToolRegistry
from toolkit.toolsets.loader import load_registry

__all__ = ["Opened", "check_sources", "open_sources", "registry_for"]

log = logging.getLogger("toolkit.server")


@dataclass(frozen=True)
class Opened:
    """A source opened by :func:`open_sources`.

    Attributes:
        source: Its row of the table.
        value: The file (or name) it was opened from.
        names: The registry names of the tools it added.
    """

    source: Source
    value: str
    names: list[str]

    def __str__(self) -> str:
        n = len(self.names)
        return f"{n} tool{'' if n == 1 else 's'} from {self.source.name} {self.value}"


def registry_for(sources: Sources) -> ToolRegistry:
    """The registry the sources join: the TARGET's (loaded by ``toolkit.toolsets.loader``), else empty.

    Raises:
        RegistrationError: The TARGET cannot be imported or holds no tools.
    """
    return load_registry(sources.target) if sources.target else ToolRegistry()


def check_sources(sources: Sources) -> None:
    """Read every source named as opening would, without connecting: a broken file stops a
    server here, once, rather than in each of its workers.

    Raises:
        ValueError: A file is missing or invalid (the message names the file, field and fix).
        RegistrationError: The TARGET cannot be imported or holds no tools.
    """
    for source in SOURCES:
        value = getattr(sources, source.setting)
        if value is not None:
            source.check(value)


@asynccontextmanager
async def open_sources(registry: ToolRegistry, sources: Sources) -> AsyncIterator[list[Opened]]:
    """Add every source named (but the TARGET, which is ``registry`` itself) to ``registry``
    through ``registry.add_toolset``, and keep them open and current while the block runs.

    Yields:
        What each source added, in the table's order.

    Raises:
        ValueError: A file is invalid.
        RegistrationError: A tool name is already taken (a source that skips clashes raises
            only when every one of its tools clashes).
        ToolError: A remote server cannot be reached.
    """
    async with AsyncExitStack() as stack:
        opened: list[Opened] = []
        for source in SOURCES:
            value = getattr(sources, source.setting)
            if value is None or source.open is None:
                continue
            toolsets = await stack.enter_async_context(source.open(value))
            if not toolsets:
                continue
            names: list[str] = []
            for toolset in toolsets:
                tools = await registry.add_toolset(toolset, on_clash=source.on_clash)
                names.extend(tool.name for tool in tools)
                if source.catalog is not None:
                    await source.catalog(toolset, registry)
            opened.append(Opened(source, value, names))
            log.info("added %s", opened[-1])
        yield opened
