"""A bound on the size of a tool call's arguments (``build_agent(max_argument_chars=...)``).

A model can write arguments without end: on llama-cpp-python's ``chatml-function-calling``
format the arguments are generated with no token limit (the request's ``max_tokens`` does not
apply to them), and a small model once wrote about 4,000 argument tokens for one call. The
server's side is bounded only by the context size, a schema's ``maxLength``/``maxItems`` (they
become part of the grammar) and the client's timeout (see ``docs/local-models.md``). What the
agent can do is refuse to run a call whose arguments are over the bound, with a coded message
the model can act on, so that an oversized value never reaches a tool.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolCall

from toolkit import ErrorCode, ToolError, ToolResult

__all__ = ["argument_chars", "oversize"]


def argument_chars(arguments: Any) -> int:
    """The size of ``arguments`` as the model wrote them (JSON text; a raw string as is)."""
    if isinstance(arguments, str):
        return len(arguments)
    return len(json.dumps(arguments, ensure_ascii=False, default=str, separators=(",", ":")))


def oversize(call: ToolCall, limit: int | None) -> ToolResult | None:
    """The refusal of ``call`` when its arguments are longer than ``limit`` characters."""
    if limit is None:
        return None
    size = argument_chars(call.get("args"))
    if size <= limit:
        return None
    name = call["name"]
    error = ToolError(
        f"Error [{ErrorCode.INVALID_PARAMS.value}] in tool '{name}': the arguments are {size} "
        f"characters long, and calls here take at most {limit}. Nothing was run. Call it again "
        "with only the values the request needs, written shorter.",
        code=ErrorCode.INVALID_PARAMS,
        retryable=False,
        details={"argument_chars": size, "max_argument_chars": limit},
    )
    return ToolResult.failure(error, tool=name, call_id=call.get("id") or "")
