"""mcp-toolkit core: business functions as LLM tools, one registry, one call path.

The core depends on pydantic, docstring-parser, jsonschema, tenacity and anyio only; the
adapters (LangChain, LangGraph, MCP client and server, OpenAI) live in the ``adapters`` package.
"""

import logging

from toolkit._sync import run_sync  # noqa: F401 - kept importable, not in __all__
from toolkit.context import Injected, ToolContext
from toolkit.decorator import ToolDefinition, mcp_tool  # noqa: F401
from toolkit.errors import ErrorCode, RegistrationError, ToolError
from toolkit.function_tool import FunctionTool  # noqa: F401
from toolkit.invoker import Invoker  # noqa: F401
from toolkit.options import CallOptions
from toolkit.policy import Approval, Approver, CallRequest, Decision, Policy, default_policy
from toolkit.processor import ExceptionProcessor
from toolkit.registry import ENTRY_POINT_GROUP, ToolRegistry  # noqa: F401
from toolkit.result import (
    AudioContent,
    CallRecord,
    Content,
    ImageContent,
    ResourceContent,
    TextContent,
    ToolResult,
)
from toolkit.spec import ToolAnnotations, ToolOptions, ToolSpec, is_valid_name  # noqa: F401
from toolkit.tool import ArgumentProblem, InvalidArguments, Tool

# A library only logs; the application decides where records go (no last-resort stderr output).
logging.getLogger("toolkit").addHandler(logging.NullHandler())

# What a user writes. Everything else stays importable (``toolkit.FunctionTool``,
# ``toolkit.Invoker``…) for existing code, but is not part of the surface documented in the
# README; adapters reach the shared event loop through ``toolkit.runtime``.
__all__ = [
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
    "Policy",
    "RegistrationError",
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
    "default_policy",
    "mcp_tool",
]
