"""mcp-toolkit core: business functions as LLM tools, one registry, one call path.

The core depends on pydantic, docstring-parser, jsonschema, tenacity and anyio only; the
adapters (LangChain, LangGraph, MCP client and server, OpenAI) live in the ``adapters`` package.
"""

import logging

from toolkit._sync import run_sync
from toolkit.context import Injected, ToolContext
from toolkit.decorator import ToolDefinition, mcp_tool
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool
from toolkit.invoker import Invoker
from toolkit.json_schema_tool import JsonSchemaTool
from toolkit.policy import Approval, Approver, CallRequest, Decision, Policy, default_policy
from toolkit.processor import ExceptionProcessor
from toolkit.registry import ENTRY_POINT_GROUP, ToolRegistry
from toolkit.result import (
    AudioContent,
    CallRecord,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)
from toolkit.spec import ToolAnnotations, ToolOptions, ToolSpec, is_valid_name
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool

# A library only logs; the application decides where records go (no last-resort stderr output).
logging.getLogger("toolkit").addHandler(logging.NullHandler())

__all__ = [
    "ENTRY_POINT_GROUP",
    "Approval",
    "Approver",
    "ArgumentProblem",
    "AudioContent",
    "CallRecord",
    "CallRequest",
    "Content",
    "Decision",
    "ErrorCode",
    "ExceptionProcessor",
    "FunctionTool",
    "ImageContent",
    "Injected",
    "InvalidArguments",
    "Invoker",
    "JsonSchemaTool",
    "Policy",
    "RegistrationError",
    "ResourceContent",
    "TextContent",
    "Tool",
    "ToolAnnotations",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolOptions",
    "ToolRegistry",
    "ToolResult",
    "ToolSpec",
    "default_policy",
    "is_valid_name",
    "mcp_tool",
    "run_sync",
]
