"""LangGraph: three levels of tool calling over a registry.

* L1 :func:`tool_node` — one tool, arguments from state templates, no model;
* L2 :func:`single_turn_node` — one model turn that may call tools;
* L3 :func:`build_agent` — the model ⇄ tools loop with a graceful stop, approvals and a log;
* skills: :func:`graph_tool` — a compiled graph registered as one tool.
"""

from adapters._extras import require

require("adapters.langgraph", "langgraph")

from adapters.langchain.approval import approval_payload, interrupt_approver, to_approval
from adapters.langchain.stream_events import ToolEvent, is_tool_event
from adapters.langgraph._prompt import PromptValueMissing
from adapters.langgraph.agent import STOP_NOTE, as_registry, build_agent, single_turn_node
from adapters.langgraph.deterministic import tool_node
from adapters.langgraph.graph_tool import GraphTool, SkillToolset, graph_tool
from adapters.langgraph.persistence import (
    async_checkpointer,
    async_postgres_checkpointer,
    async_sqlite_checkpointer,
    postgres_checkpointer,
    sqlite_checkpointer,
)
from adapters.langgraph.state import AgentState, ToolCallEntry, add_usage
from adapters.langgraph.summary import RunSummary
from adapters.langgraph.tool_search import ToolSearch

__all__ = [
    "STOP_NOTE",
    "AgentState",
    "GraphTool",
    "PromptValueMissing",
    "RunSummary",
    "SkillToolset",
    "ToolCallEntry",
    "ToolEvent",
    "ToolSearch",
    "add_usage",
    "approval_payload",
    "as_registry",
    "async_checkpointer",
    "async_postgres_checkpointer",
    "async_sqlite_checkpointer",
    "build_agent",
    "graph_tool",
    "interrupt_approver",
    "is_tool_event",
    "postgres_checkpointer",
    "single_turn_node",
    "sqlite_checkpointer",
    "to_approval",
    "tool_node",
]
