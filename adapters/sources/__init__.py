"""The tool sources a command line or a config names, as one table.

:data:`SOURCES` lists them (TARGET, ``--http-tools``, a config's ``httpTools`` and its
``mcpServers``), each with what it reads, how to check it without connecting and how to open
it as a :class:`toolkit.Toolset`. ``toolkit serve`` and :func:`adapters.mcp_server.create_app`
use :func:`registry_for`, :func:`check_sources` and :func:`open_sources`::

    sources = Sources(target="myapp.tools", config="mcp.json")
    check_sources(sources)  # a broken file fails here, without connecting
    registry = registry_for(sources)
    async with open_sources(registry, sources) as opened:
        ...  # serve registry; every source stays open and current meanwhile

A new source is a new ``Toolset`` and one new row of :data:`SOURCES`.
"""

from adapters.sources._open import Opened, check_sources, open_sources, registry_for
from adapters.sources._table import SOURCES, Source, Sources

__all__ = [
    "SOURCES",
    "Opened",
    "Source",
    "Sources",
    "check_sources",
    "open_sources",
    "registry_for",
]
