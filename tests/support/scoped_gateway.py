"""A gateway's own registry for the caller tests: a policy that shows the tools of the remote
server ``relay`` only to callers with the ``relay`` scope, and a secret it masks.

Served with ``toolkit serve tests.support.scoped_gateway:registry --config ...``. The policy
says nothing about resources and prompts: the gateway scopes a remote server's resources and
prompts like its tools by itself.
"""

from __future__ import annotations

from toolkit import ToolRegistry, mcp_tool
from toolkit.policy import CallRequest, Decision

__all__ = ["GATEWAY_SECRET", "registry"]

#: A secret of the gateway's registry; the relay server puts it in its log messages.
GATEWAY_SECRET = "gw-secret-0123456789"


def relay_scope(request: CallRequest) -> Decision:
    """Only callers with the ``relay`` scope see the tools of the ``relay`` server."""
    served = {"resource", "prompt"} & request.spec.tags
    if request.tool.startswith("relay_") and not served:
        return "allow" if "relay" in request.context.get("scopes", []) else "deny"
    return "allow"


@mcp_tool
def ping() -> str:
    """Answer pong."""
    return "pong"


registry = ToolRegistry(policy=relay_scope, secrets=(GATEWAY_SECRET,))
registry.register(ping)
