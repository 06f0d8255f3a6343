"""Sources of tools and how they join a registry: the ``Toolset`` contract and its wrappers,
what a user may hand over (``as_toolset``), local objects, pinned arguments and loading a
TARGET.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolkit.toolsets.pinned import PinnedTool, unpinned
from toolkit.toolsets.toolset import (
    WRAPPER_FIX,
    BaseToolset,
    FilteredToolset,
    OnClash,
    PinnedToolset,
    PrefixedToolset,
    RenamedToolset,
    ToolsChanged,
    Toolset,
    WrapperToolset,
)

if TYPE_CHECKING:
    from toolkit.toolsets.loader import load_registry, load_target
    from toolkit.toolsets.object_toolset import ObjectToolset
    from toolkit.toolsets.toolset_kinds import (
        TOOLSET_KINDS,
        RegistryToolset,
        ToolsetKind,
        as_toolset,
    )

#: Names whose modules build on ``toolkit.registry`` (which joins toolsets into a registry):
#: imported when first asked for, so that the registry may import this room.
_LAZY = {
    "load_registry": "toolkit.toolsets.loader",
    "load_target": "toolkit.toolsets.loader",
    "ObjectToolset": "toolkit.toolsets.object_toolset",
    "TOOLSET_KINDS": "toolkit.toolsets.toolset_kinds",
    "RegistryToolset": "toolkit.toolsets.toolset_kinds",
    "ToolsetKind": "toolkit.toolsets.toolset_kinds",
    "as_toolset": "toolkit.toolsets.toolset_kinds",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit.toolsets' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "TOOLSET_KINDS",
    "WRAPPER_FIX",
    "BaseToolset",
    "FilteredToolset",
    "ObjectToolset",
    "OnClash",
    "PinnedTool",
    "PinnedToolset",
    "PrefixedToolset",
    "RegistryToolset",
    "RenamedToolset",
    "ToolsChanged",
    "Toolset",
    "ToolsetKind",
    "WrapperToolset",
    "as_toolset",
    "load_registry",
    "load_target",
    "unpinned",
]
