"""The catalog beside the tools: resources, prompts and their URI templates.

Every name here is public: adapters import the core's names from ``toolkit`` or from a room.
"""

from toolkit.catalog.prompts import (
    PROMPT_ATTRIBUTE,
    FunctionPrompt,
    PromptArgument,
    PromptDefinition,
    PromptMessage,
    PromptRegistry,
    mcp_prompt,
)
from toolkit.catalog.resources import (
    RESOURCE_ATTRIBUTE,
    Completer,
    FunctionResource,
    ResourceDefinition,
    ResourceRegistry,
    mcp_resource,
)

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
    "mcp_prompt",
    "mcp_resource",
]
