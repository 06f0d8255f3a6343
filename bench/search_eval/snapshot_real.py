"""Write ``real_tools.json``: the tool lists of the real catalogs this project talks to.

Run once (``python -m bench.search_eval.snapshot_real``) after ``tests/support/peers.sh``; the
benchmark reads the snapshot so it needs no subprocess. Sources: the demo's warehouse
functions, the demo's carriers and labels MCP servers, the test suite's MCP servers, the
third-party ``server-everything`` and ``mcp-server-time``, and the OpenAPI document of the
test suite's orders service (one tool per operation).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio

from adapters.http import HttpToolset
from adapters.mcp_client import McpClientPool
from tests.support.orders_service import orders_app
from toolkit import ToolRegistry

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PEERS = ROOT / ".peers"
SERVERS = ROOT / "tests" / "support" / "mcp_servers"

CONFIG: dict[str, dict[str, Any]] = {
    "carriers": {"command": sys.executable, "args": ["-m", "adapters.demo.carriers_server"]},
    "labels": {"command": sys.executable, "args": ["-m", "adapters.demo.labels_server"]},
    "echo": {"command": sys.executable, "args": [str(SERVERS / "echo_server.py")]},
    "paged": {"command": sys.executable, "args": [str(SERVERS / "paged_server.py")]},
    "everything": {"command": str(PEERS / "node_modules/.bin/mcp-server-everything")},
    "time": {"command": str(PEERS / "time-venv/bin/mcp-server-time")},
}


def _spec(tool: Any, source: str) -> dict[str, Any]:
    spec = tool.spec
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.input_schema,
        "tags": sorted(spec.tags),
        "source": source,
    }


async def main() -> None:
    registry = ToolRegistry()
    rows: list[dict[str, Any]] = []
    registry.scan("adapters.demo.warehouse")
    rows += [_spec(t, "demo warehouse functions") for t in registry]
    async with McpClientPool(CONFIG, grace=0.5) as pool:
        for server in CONFIG:
            rows += [_spec(t, f"MCP server {server}") for t in await pool.tools(server)]
    orders = HttpToolset.from_openapi(orders_app().openapi(), base_url="http://127.0.0.1:9/")
    api = ToolRegistry()
    orders.register_into(api, namespace="orders")
    rows += [_spec(t, "OpenAPI orders service") for t in api]
    (HERE / "real_tools.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{len(rows)} tools written")


if __name__ == "__main__":
    anyio.run(main)
