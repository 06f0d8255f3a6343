"""Approval of tools that need it (destructive ones by default) when served over MCP.

The registry's own approver, when it has one, always decides. Otherwise the server asks the
user of the calling client through elicitation when the client can; tools the operator
allowed explicitly (``toolkit serve --allow-destructive NAME``) run without asking; anything
else is refused with a message that says no user was asked, why, and how to allow it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from toolkit.errors import ErrorCode, ToolError
from toolkit.policy import Approval, CallRequest

__all__ = ["ElicitingApprover"]

_SCHEMA = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run it",
            "description": "Run this call now",
            "default": False,
        }
    },
    "required": ["approve"],
}


class ElicitingApprover:
    """Answers ``"ask"``: operator's allow-list first, then the client's user.

    Args:
        allowed: Tool names that run without asking (``"*"`` for every tool).
    """

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = frozenset(allowed)

    async def __call__(self, request: CallRequest) -> Approval:
        """Decide one call."""
        if request.tool in self.allowed or "*" in self.allowed:
            return Approval(approved=True)
        arguments = json.dumps(request.arguments, default=str)[:500]
        try:
            answer = await request.context.elicit(
                f"Tool {request.tool} may change or delete data. Run it with {arguments}?",
                _SCHEMA,
            )
        except ToolError as exc:
            # Nobody was asked, so nobody rejected it: say so, and how the operator fixes it.
            raise ToolError(
                f"Tool {request.tool} needs approval and was not run: no user was asked. "
                f"{exc.message} Or the server operator allows it with --allow-destructive "
                f"{request.tool}. Do not retry it unless the user asks.",
                code=ErrorCode.DENIED,
            ) from None
        if answer.accepted and answer.content.get("approve") is True:
            return Approval(approved=True)
        return Approval(approved=False, reason=f"The user did not approve running {request.tool}.")
