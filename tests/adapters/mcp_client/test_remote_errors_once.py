"""A remote failure reaches the model as one message: one code prefix, one ref."""

from __future__ import annotations

import anyio

from adapters.demo import carriers_server_config
from adapters.mcp_client import McpClientPool
from toolkit import ErrorCode, ToolRegistry


def test_sdk_server_failure_loses_the_sdk_prefix() -> None:
    async def main() -> str:
        registry = ToolRegistry()
        async with McpClientPool({"carriers": carriers_server_config(call_timeout=20)}) as pool:
            await pool.register_into(registry)
            result = await registry.call(
                "carriers_quote_shipment", {"weight_kg": 1, "country": "BR"}
            )
        assert result.code is ErrorCode.EXECUTION_ERROR
        return result.content

    content = anyio.run(main)
    assert content.startswith(
        "Error [EXECUTION_ERROR] in tool 'carriers_quote_shipment': No service to 'BR'"
    )
    assert "Error executing tool" not in content
    assert content.count("Error [") == 1 and content.count("(ref ") == 1
