"""Tool schemas for other providers: Gemini's OpenAPI subset and Anthropic's tool form.

Beside the OpenAI form (:mod:`adapters.openai`), each with the same rule: a tool's schema is
fitted to the provider per tool, every change is named in a :class:`ProviderSchemaWarning`,
and no tool is dropped. :mod:`adapters.providers.subsets` checks the documented subsets offline.
"""

from adapters.providers._schema_walk import ProviderSchemaWarning
from adapters.providers.anthropic import to_anthropic_tool, to_anthropic_tools
from adapters.providers.gemini import to_gemini_schema, to_gemini_tools
from adapters.providers.subsets import (
    anthropic_tool_problems,
    gemini_declaration_problems,
    gemini_schema_problems,
)

__all__ = [
    "ProviderSchemaWarning",
    "anthropic_tool_problems",
    "gemini_declaration_problems",
    "gemini_schema_problems",
    "to_anthropic_tool",
    "to_anthropic_tools",
    "to_gemini_schema",
    "to_gemini_tools",
]
