"""LangChain: registry tools as ``BaseTool`` objects, results as ``ToolMessage`` objects, and
an ``Embeddings`` model as the embedder of tool search."""

from adapters._extras import require

require("adapters.langchain", "langchain")

from adapters.langchain.approval import (
    approval_payload,
    call_options,
    interrupt_approver,
    to_approval,
)
from adapters.langchain.embeddings import LangChainEmbedder, embedder
from adapters.langchain.injection import ContextKeys, Injection, find_injections
from adapters.langchain.messages import result_artifact, result_content, to_tool_message
from adapters.langchain.resources import prompt_messages, resource_documents
from adapters.langchain.stream_events import ToolEvent, is_tool_event
from adapters.langchain.tool import RegistryTool, build_context, to_langchain_tools
from adapters.langchain.tool_images import (
    images_out_of_tool_messages,
    needs_text_only_tool_messages,
)

__all__ = [
    "ContextKeys",
    "Injection",
    "LangChainEmbedder",
    "RegistryTool",
    "ToolEvent",
    "approval_payload",
    "build_context",
    "call_options",
    "embedder",
    "find_injections",
    "images_out_of_tool_messages",
    "interrupt_approver",
    "is_tool_event",
    "needs_text_only_tool_messages",
    "prompt_messages",
    "resource_documents",
    "result_artifact",
    "result_content",
    "to_approval",
    "to_langchain_tools",
    "to_tool_message",
]
