"""Run in a fresh interpreter with no tracer provider: what a served tool sees of the trace.

Prints one JSON object: whether a provider was configured, and the trace id the tool saw
(hex, all zeros for none) for a 2026-07-28 call without and with a ``traceparent`` in
``_meta``.
"""

from __future__ import annotations

import json

import httpx
from opentelemetry import trace

from adapters.mcp_server import build_server, http_app
from tests.support.serving import serving
from toolkit import ToolRegistry, mcp_tool

MODERN = "2026-07-28"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


@mcp_tool(read_only=True)
async def trace_id() -> str:
    """Say which trace the call runs in (32 hex digits, zeros for none)."""
    return format(trace.get_current_span().get_span_context().trace_id, "032x")


def _call(url: str, meta: dict[str, str]) -> str:
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        **meta,
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "trace_id", "arguments": {}, "_meta": envelope},
    }
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "trace_id",
    }
    reply = httpx.post(url, json=body, headers=headers, timeout=30)
    return str(reply.json()["result"]["content"][0]["text"])


def main() -> None:
    registry = ToolRegistry()
    registry.register(trace_id)
    with serving(http_app(build_server(registry, name="untraced"))) as base:
        url = f"{base}/mcp"
        seen = {
            "provider": type(trace.get_tracer_provider()).__name__,
            "plain": _call(url, {}),
            "propagated": _call(url, {"traceparent": f"00-{TRACE_ID}-00f067aa0ba902b7-01"}),
        }
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
