"""Which tools a caller may see.

Rule: a caller only ever hears about the tools it may see. A tool is visible to a caller when
the policy, asked with the caller's context and no arguments, does not answer ``"deny"``; a
policy that raises on that question (one that reads arguments) hides the tool rather than
expose it. Listings per caller come from here, and so do the messages of a call made with
``CallOptions(hide_denied=True)``: a hidden tool is ``TOOL_NOT_FOUND`` before its arguments are
read or validated, and not-found and did-you-mean messages name visible tools only.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping

from toolkit.calls._waiting import Waiting
from toolkit.context import ToolContext
from toolkit.policy import CallRequest, Policy
from toolkit.tool import Tool

log = logging.getLogger("toolkit.calls")


async def sees(
    tools: Mapping[str, Tool], name: str, policy: Policy, ctx: ToolContext, wait: Waiting
) -> bool:
    """Whether ``ctx``'s caller may see the tool ``name`` (``False`` when there is none)."""
    tool = tools.get(name)
    if tool is None:
        return False
    try:
        request = CallRequest(name, {}, tool.spec, dataclasses.replace(ctx, tool=name))
        decision = await wait.settle(policy(request))
    except Exception as exc:
        log.warning(
            "the policy raised %s deciding whether a caller may see tool %s, so it is hidden; "
            "make the policy answer for a request without arguments",
            type(exc).__name__,
            name,
        )
        return False
    return bool(decision != "deny")


async def visible(
    tools: Mapping[str, Tool], policy: Policy, ctx: ToolContext, wait: Waiting
) -> list[str]:
    """The names of the tools ``ctx``'s caller may see, in registration order."""
    return [name for name in list(tools) if await sees(tools, name, policy, ctx, wait)]
