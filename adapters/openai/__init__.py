"""OpenAI function calling: registry tools as function definitions, strict mode per tool."""

from adapters.openai.functions import (
    MAX_TOOLS,
    StrictMode,
    StrictSchemaWarning,
    select_tools,
    to_openai_tools,
)
from adapters.openai.strict import NotStrictable, drop_strict_nulls, to_strict_schema

__all__ = [
    "MAX_TOOLS",
    "NotStrictable",
    "StrictMode",
    "StrictSchemaWarning",
    "drop_strict_nulls",
    "select_tools",
    "to_openai_tools",
    "to_strict_schema",
]
