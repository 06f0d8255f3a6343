"""mcp-toolkit core: business functions as LLM tools, one registry, one call path.

The core depends on pydantic, docstring-parser, jsonschema, tenacity, anyio and
typing-extensions; the adapters (LangChain, LangGraph, MCP client and server, OpenAI) live in the
``adapters`` package.
"""

import logging

from toolkit.calls._sync import run_sync as run_sync  # kept importable, not in __all__
from toolkit.calls.invoker import Invoker as Invoker
from toolkit.calls.options import CallOptions
from toolkit.calls.processor import ExceptionProcessor
from toolkit.calls.settings import RegistrySettings
from toolkit.calls.spec import ToolAnnotations, ToolOptions, ToolSpec
from toolkit.calls.spec import is_valid_name as is_valid_name
from toolkit.calls.unset import UNSET, Unset
from toolkit.catalog.prompts import PromptMessage, mcp_prompt
from toolkit.catalog.prompts import PromptRegistry as PromptRegistry
from toolkit.catalog.resources import ResourceRegistry as ResourceRegistry
from toolkit.catalog.resources import mcp_resource
from toolkit.context import Injected, ToolContext
from toolkit.decorator import ToolDefinition as ToolDefinition
from toolkit.decorator import mcp_tool
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool as FunctionTool
from toolkit.governance.budget import Run, RunBudget
from toolkit.governance.cache import ResultCache
from toolkit.governance.caller_budget import CallerBudget
from toolkit.governance.middleware import CallNext, Middleware, ToolCall
from toolkit.governance.rate_limit import RateLimit
from toolkit.json_schema_tool import JsonSchemaTool
from toolkit.policy import Approval, Approver, CallRequest, Decision, Policy, default_policy
from toolkit.registry import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from toolkit.registry import ToolRegistry
from toolkit.result import (
    AudioContent,
    CallRecord,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool
from toolkit.toolsets.object_toolset import ObjectToolset as ObjectToolset
from toolkit.toolsets.pinned import PinnedTool as PinnedTool
from toolkit.toolsets.toolset import BaseToolset as BaseToolset
from toolkit.toolsets.toolset import Toolset
from toolkit.toolsets.toolset_kinds import as_toolset

# A library only logs; the application decides where records go (no last-resort stderr output).
logging.getLogger("toolkit").addHandler(logging.NullHandler())

# What a user writes. Everything else stays importable (``toolkit.FunctionTool``,
# ``toolkit.Invoker``…) for existing code, but is not part of the surface documented in the
# README; adapters reach the shared event loop through ``toolkit.calls.runtime``.
__all__ = [
    "UNSET",
    "Approval",
    "Approver",
    "ArgumentProblem",
    "AudioContent",
    "CallNext",
    "CallOptions",
    "CallRecord",
    "CallRequest",
    "CallerBudget",
    "Content",
    "Decision",
    "ErrorCode",
    "ExceptionProcessor",
    "ImageContent",
    "Injected",
    "InvalidArguments",
    "JsonSchemaTool",
    "Middleware",
    "Policy",
    "PromptMessage",
    "RateLimit",
    "RegistrationError",
    "RegistrySettings",
    "ResourceContent",
    "ResultCache",
    "Run",
    "RunBudget",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
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
