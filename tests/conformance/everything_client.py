"""The client side of the MCP conformance suite: ``McpClientPool`` doing what each scenario asks.

The suite starts its own server per scenario and runs
``python tests/conformance/everything_client.py URL`` with ``MCP_CONFORMANCE_SCENARIO`` set.
Everything here goes through the pool's public API, as an agent builder would use it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any
from urllib.parse import urlsplit

import httpx

from adapters.mcp_client import McpClientPool, headless_flow
from toolkit.calls.interaction import Elicitation, SamplingMessage

#: Arguments per tool name for the scenarios whose server expects some.
_ARGUMENTS: dict[str, dict[str, Any]] = {"add_numbers": {"a": 5, "b": 3}}


def _server_config(url: str, scenario: str) -> dict[str, Any]:
    config: dict[str, Any] = {"url": url, "transport": "http"}
    if scenario.startswith("auth/"):
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
        config["auth"] = _auth(url, scenario, context)
    return config


def _auth(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    """The auth section a user would write for the credentials the scenario hands out."""
    auth: dict[str, Any] = {"type": "oauth"}
    if scenario.startswith("auth/client-credentials"):
        auth = {"type": "client_credentials"}
        if context.get("private_key_pem"):
            auth["private_key"] = context["private_key_pem"]
            auth["signing_algorithm"] = context.get("signing_algorithm", "RS256")
    elif "idp_id_token" in context:
        # An administrator configures the authorization server the client is provisioned for;
        # here it is read from the server's protected-resource metadata, as one would look it up.
        auth = {
            "type": "identity_assertion",
            "issuer": _authorization_server(url),
            "idp_token_endpoint": context["idp_token_endpoint"],
            "idp_client_id": context["idp_client_id"],
            "id_token": context["idp_id_token"],
        }
    for key in ("client_id", "client_secret"):
        if context.get(key):
            auth[key] = context[key]
    return auth


def _authorization_server(url: str) -> str:
    parts = urlsplit(url)
    metadata = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
    return str(httpx.get(metadata, timeout=10).json()["authorization_servers"][0])


async def _accept_defaults(server: str, message: str, schema: Any) -> Elicitation:
    # A user who accepts the form as shown: every field keeps its default.
    return Elicitation(action="accept", content={})


async def _echo_model(
    server: str, messages: Any, system_prompt: str | None, max_tokens: int
) -> str:
    last: SamplingMessage = messages[-1]
    return f"echo: {last.text}"


async def main(url: str, scenario: str) -> int:
    """Connect, list the tools, call each one; 0 when every call answered."""
    os.environ["MCP_TOOLKIT_HOME"] = tempfile.mkdtemp(prefix="mcp-toolkit-conformance-")
    servers = {"peer": _server_config(url, scenario)}
    failures = 0
    async with McpClientPool(
        servers,
        elicitation=_accept_defaults,
        sampling=_echo_model,
        oauth_flow=headless_flow(),  # the suite's authorization server approves at once
    ) as pool:
        tools = await pool.tools("peer", prefix="")
        print(f"{len(tools)} tools: {', '.join(t.name for t in tools)}")
        if scenario == "initialize":
            return 0
        for tool in tools:
            try:
                result = await pool.call("peer", tool.name, _ARGUMENTS.get(tool.name, {}))
                print(f"{tool.name}: {result.content}")
            except Exception as exc:  # report and go on: the suite judges, not this script
                failures += 1
                print(f"{tool.name} failed: {exc}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", ""))))
