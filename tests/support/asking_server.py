"""A tool that asks its caller a question before it acts (served over stdio in tests)."""

from __future__ import annotations

from toolkit import ToolContext, ToolRegistry, mcp_tool

QUANTITY = {
    "type": "object",
    "properties": {"quantity": {"type": "integer", "minimum": 1, "description": "How many"}},
    "required": ["quantity"],
}


@mcp_tool
async def reserve(sku: str, context: ToolContext) -> str:
    """Reserve items of a SKU, asking the user how many.

    Args:
        sku: The SKU to reserve.
    """
    answer = await context.elicit(f"How many of {sku} should I reserve?", QUANTITY)
    if not answer.accepted:
        return f"nothing reserved ({answer.action})"
    return f"reserved {answer.content['quantity']} of {sku}"


registry = ToolRegistry()
registry.register(reserve)
