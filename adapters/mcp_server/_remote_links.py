"""Resource links a gateway hands out point at the gateway.

A remote tool may return a resource link (or an embedded resource) with the remote server's
URI, which the gateway's clients cannot read: the gateway serves that server's resources under
its own prefix (``<server>+<uri>``). Rule: every URI the gateway hands out can be read through
the gateway, so when the registry re-serves the tool's server's catalog, the result's resource
URIs are rewritten to the served ones before they go on the wire.
"""

from __future__ import annotations

import copy
import dataclasses

from toolkit.registry import ToolRegistry
from toolkit.result import ResourceContent, ToolResult

__all__ = ["through_gateway"]


def through_gateway(registry: ToolRegistry, result: ToolResult) -> ToolResult:
    """``result`` with the resource URIs of a remote tool's blocks under the gateway's prefix
    (unchanged when it has none, or when the server's resources are not re-served here)."""
    if not result.blocks or not any(isinstance(b, ResourceContent) for b in result.blocks):
        return result
    tool = registry.get(result.tool) if result.tool and result.tool in registry else None
    server = getattr(tool, "server", None)
    if not isinstance(server, str) or not any(r.server == server for r in registry.resources):
        return result
    mark = f"{server}+"
    blocks = [
        dataclasses.replace(block, uri=mark + block.uri)
        if isinstance(block, ResourceContent) and not block.uri.startswith(mark)
        else block
        for block in result.blocks
    ]
    rewritten = copy.copy(result)  # a cached result stays as the cache holds it
    rewritten.blocks = blocks
    return rewritten
