"""A server's JSON-RPC error is its answer, not a lost connection; nothing runs twice."""

from __future__ import annotations

import functools
from pathlib import Path

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.hardening.conftest import misbehaving, runs
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode


async def _pool_call(log: Path, tool: str, args: dict[str, object], **extra: object) -> object:
    async with McpClientPool(misbehaving(log, call_retries=2, **extra)) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        result = await registry.call(f"m_{tool}", args)
        return result, pool.connection("m").connects


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (-32000, ErrorCode.EXECUTION_ERROR),
        (-32603, ErrorCode.EXECUTION_ERROR),
        (-32602, ErrorCode.INVALID_PARAMS),
        (-32001, ErrorCode.TIMEOUT),
    ],
)
def test_json_rpc_error_reply_runs_once_and_keeps_the_connection(
    log: Path, code: int, expected: ErrorCode
) -> None:
    result, connects = anyio.run(_pool_call, log, "fail", {"code": code})
    assert result.is_error
    assert result.error.code == expected
    assert f"tool broke with {code}" in result.error.message
    assert runs(log, "fail") == 1
    assert connects == 1


def test_idempotent_tool_error_reply_is_still_not_a_lost_connection(log: Path) -> None:
    result, connects = anyio.run(_pool_call, log, "fail_idempotent", {"code": -32000})
    assert result.error.code == ErrorCode.EXECUTION_ERROR
    assert runs(log, "fail_idempotent") == 1
    assert connects == 1


def test_lost_connection_mid_call_is_not_resent_for_a_plain_tool(log: Path) -> None:
    result, _ = anyio.run(_pool_call, log, "die", {})
    assert result.error.code == ErrorCode.UNREACHABLE
    assert not result.error.retryable
    assert "not marked idempotent" in result.error.message
    assert runs(log, "die") == 1


def test_lost_connection_mid_call_is_resent_for_a_read_only_tool(log: Path) -> None:
    result, _ = anyio.run(_pool_call, log, "die_readonly", {})
    assert result.error.code == ErrorCode.UNREACHABLE
    assert runs(log, "die_readonly") == 3  # first try + call_retries=2


def test_config_can_mark_a_tool_idempotent(log: Path) -> None:
    result, _ = anyio.run(functools.partial(_pool_call, log, "die", {}, idempotent=["di*"]))
    assert result.error.code == ErrorCode.UNREACHABLE
    assert runs(log, "die") == 3
