"""mcp-toolkit core: business functions as LLM tools, one registry, one call path.

The core depends on pydantic, docstring-parser, jsonschema, tenacity, anyio and
typing-extensions; the adapters (LangChain, LangGraph, MCP client and server, OpenAI) live in the
``adapters`` package.
"""

import logging

from toolkit._sync import run_sync as run_sync  # kept importable, not in __all__
from toolkit.context import Injected, ToolContext
from toolkit.decorator import ToolDefinition as ToolDefinition
from toolkit.decorator import mcp_tool
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool as FunctionTool
from toolkit.invoker import Invoker as Invoker
from toolkit.json_schema_tool import JsonSchemaTool
from toolkit.object_toolset import ObjectToolset as ObjectToolset
from toolkit.options import CallOptions
from toolkit.pinned import PinnedTool as PinnedTool
from toolkit.policy import Approval, Approver, CallRequest, Decision, Policy, default_policy
from toolkit.processor import ExceptionProcessor
from toolkit.prompts import PromptMessage, mcp_prompt
from toolkit.prompts import PromptRegistry as PromptRegistry
from toolkit.registry import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from toolkit.registry import ToolRegistry
from toolkit.resources import ResourceRegistry as ResourceRegistry
from toolkit.resources import mcp_resource
from toolkit.result import (
    AudioContent,
    CallRecord,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)
from toolkit.settings import RegistrySettings
from toolkit.spec import ToolAnnotations, ToolOptions, ToolSpec
from toolkit.spec import is_valid_name as is_valid_name
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool
from toolkit.toolset import BaseToolset as BaseToolset
from toolkit.toolset import Toolset
from toolkit.toolset_kinds import as_toolset
from toolkit.unset import UNSET, Unset

# A library only logs; the application decides where records go (no last-resort stderr output).
logging.getLogger("toolkit").addHandler(logging.NullHandler())

# What a user writes. Everything else stays importable (``toolkit.FunctionTool``,
# ``toolkit.Invoker``…) for existing code, but is not part of the surface documented in the
# README; adapters reach the shared event loop through ``toolkit.runtime``.
__all__ = [
    "UNSET",
    "Approval",
    "Approver",
    "ArgumentProblem",
    "AudioContent",
    "CallOptions",
    "CallRecord",
    "CallRequest",
    "Content",
    "Decision",
    "ErrorCode",
    "ExceptionProcessor",
    "ImageContent",
    "Injected",
    "InvalidArguments",
    "JsonSchemaTool",
    "Policy",
    "PromptMessage",
    "RegistrationError",
    "RegistrySettings",
    "ResourceContent",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolError",
    "ToolOptions",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "Toolset",
    "Unset",
    "as_toolset",
    "default_policy",
    "mcp_prompt",
    "mcp_resource",
    "mcp_tool",
]
