"""``--tool-search``: serve a big registry as a search tool, a call tool and the most used tools.

``tools/list`` then holds ``search_tools`` (names, descriptions and input schemas of the best
matches for a query), ``call_tool`` (for clients that can only call listed tools) and,
optionally, the ``top`` tools called most often so far. Every registered tool can still be
called by its own name, through the registry as usual.

Rule: what goes wrong inside the meta tools is the model's to fix, so it comes back as an
``isError`` result with a code (``INVALID_PARAMS`` for a search without a query or a
``call_tool`` without a name, ``TOOL_NOT_FOUND`` with the closest names for an unknown name),
never as a protocol error the client may not show the model.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from adapters.mcp_server._wire import tool_entry
from toolkit import ErrorCode, ToolError, ToolRegistry

__all__ = ["CALL_TOOL", "SEARCH_TOOL", "SearchMode"]

SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"
_MAX_FOUND = 20

_SEARCH_ENTRY: dict[str, Any] = {
    "name": SEARCH_TOOL,
    "description": (
        "Find tools for a task among every tool of this server: returns the name, "
        "description and input schema of the best matches. Call a tool found by its name "
        f"(or through {CALL_TOOL} if your client only calls listed tools)."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The task, in a few words."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": _MAX_FOUND,
                "description": "How many tools at most (default 8).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}

_CALL_ENTRY: dict[str, Any] = {
    "name": CALL_TOOL,
    "description": (
        f"Call a tool found with {SEARCH_TOOL}, by its name, with arguments that fit its "
        "input schema."
    ),
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's name."},
            "arguments": {"type": "object", "description": "The tool's arguments."},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}


class SearchMode:
    """What ``tools/list`` and the two meta tools answer in tool-search mode.

    Args:
        top: Also list the ``top`` tools called most often (by the registry's records).
        found: Tools a search returns when the query gives no ``limit``.
    """

    def __init__(self, *, top: int = 0, found: int = 8) -> None:
        if top < 0:
            raise ValueError(f"tool search lists 0 or more most-used tools, not {top}.")
        self.top = top
        self.found = found

    def handles(self, name: str, registry: ToolRegistry) -> bool:
        """Whether a call of ``name`` is for a meta tool (a registered tool of that name wins)."""
        return name in (SEARCH_TOOL, CALL_TOOL) and name not in registry

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """The input schema of a meta tool."""
        entry = {SEARCH_TOOL: _SEARCH_ENTRY, CALL_TOOL: _CALL_ENTRY}.get(name)
        return None if entry is None else entry["inputSchema"]

    def listed(self, registry: ToolRegistry) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The meta entries, and the entries of the most used tools (to check for visibility)."""
        counts = Counter(r.tool for r in registry.records if r.tool in registry)
        used = [registry.get(name).spec for name, _ in counts.most_common(self.top)]
        return [_SEARCH_ENTRY, _CALL_ENTRY], [tool_entry(spec) for spec in used]

    def search(self, registry: ToolRegistry, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        """The entries of the tools that best match the search's ``query``.

        Raises:
            ToolError: ``INVALID_PARAMS`` when the arguments do not fit the search's schema.
        """
        query, limit = arguments.get("query"), arguments.get("limit", self.found)
        if not isinstance(query, str) or not query.strip():
            raise _invalid(f"{SEARCH_TOOL} needs a 'query': the task in words.")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= _MAX_FOUND:
            raise _invalid(f"'limit' must be a whole number from 1 to {_MAX_FOUND}.")
        return [tool_entry(t.spec) for t in registry.search(query, k=limit)]

    @staticmethod
    def result(entries: Sequence[dict[str, Any]], query: str) -> dict[str, Any]:
        """The ``tools/call`` result of a search."""
        found = [
            {k: e[k] for k in ("name", "description", "inputSchema") if k in e} for e in entries
        ]
        text = (
            json.dumps(found, ensure_ascii=False)
            if found
            else (f"No tool matches {query!r}. Try other words.")
        )
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"tools": found},
            "isError": False,
            "resultType": "complete",
        }

    @staticmethod
    def unwrap(arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The tool name and arguments a ``call_tool`` call carries.

        Raises:
            ToolError: ``INVALID_PARAMS`` when ``name`` or ``arguments`` are missing or wrong.
        """
        name, inner = arguments.get("name"), arguments.get("arguments")
        if not isinstance(name, str) or not name:
            raise _invalid(f"{CALL_TOOL} needs 'name': a tool from {SEARCH_TOOL}.")
        if inner is None:
            inner = {}
        if not isinstance(inner, dict):
            raise _invalid(f"{CALL_TOOL}'s 'arguments' must be a JSON object.")
        return name, inner


def _invalid(message: str) -> ToolError:
    return ToolError(message, code=ErrorCode.INVALID_PARAMS)
