"""The catalog beside the tools: resources, prompts and their URI templates.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolkit.catalog.path_values import path_value_problem
from toolkit.catalog.prompts import (
    PROMPT_ATTRIBUTE,
    FunctionPrompt,
    PromptArgument,
    PromptDefinition,
    PromptMessage,
    PromptRegistry,
    mcp_prompt,
    prompt_not_found,
)
from toolkit.catalog.resources import (
    RESOURCE_ATTRIBUTE,
    Completer,
    FunctionResource,
    ResourceDefinition,
    ResourceRegistry,
    mcp_resource,
    resource_not_found,
)

if TYPE_CHECKING:
    from toolkit.catalog.served_view import ServedView, outgoing_text, served_spec


def __getattr__(name: str) -> Any:
    # A caller's view reads the registry, which imports this room: imported when asked for.
    if name in ("ServedView", "outgoing_text", "served_spec"):
        return getattr(importlib.import_module("toolkit.catalog.served_view"), name)
    raise AttributeError(f"module 'toolkit.catalog' has no attribute {name!r}")


__all__ = [
    "PROMPT_ATTRIBUTE",
    "RESOURCE_ATTRIBUTE",
    "Completer",
    "FunctionPrompt",
    "FunctionResource",
    "PromptArgument",
    "PromptDefinition",
    "PromptMessage",
    "PromptRegistry",
    "ResourceDefinition",
    "ResourceRegistry",
    "ServedView",
    "mcp_prompt",
    "mcp_resource",
    "outgoing_text",
    "path_value_problem",
    "prompt_not_found",
    "resource_not_found",
    "served_spec",
]
