"""Faulty servers get the right error code, a useful message, and no leaked secret."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest

from adapters.mcp_client import McpClientPool, McpConfigError, NetworkPolicy, load_mcp_config
from tests.adapters.mcp_client.conftest import stdio
from toolkit.errors import ErrorCode, ToolError
from toolkit.registry import ToolRegistry

pytestmark = pytest.mark.anyio


async def _connect_error(config: dict[str, object], **pool: float) -> ToolError:
    async with McpClientPool({"s": config}, grace=0.3, **pool) as p:
        with pytest.raises(ToolError) as caught:
            await p.tools("s")
    return caught.value


async def test_server_that_exits_at_start_is_unreachable_with_its_stderr() -> None:
    error = await _connect_error(stdio("echo_server.py", "--fault", "exit", retries=1))
    assert error.code == ErrorCode.UNREACHABLE
    assert "exited with code 2" in error.message and "missing configuration" in error.message


async def test_missing_command_says_so() -> None:
    error = await _connect_error({"command": "no-such-mcp-server-binary"})
    assert error.code == ErrorCode.UNREACHABLE and "not found on PATH" in error.message


async def test_garbage_on_stdout_is_a_protocol_error() -> None:
    error = await _connect_error(stdio("echo_server.py", "--fault", "garbage", retries=0))
    assert error.code == ErrorCode.PROTOCOL_ERROR and "stderr" in error.message


async def test_server_killed_mid_call_then_the_next_call_reconnects() -> None:
    async with McpClientPool({"s": stdio()}, grace=0.3) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        died = await registry.call("s_die", {})
        again = await registry.call("s_echo", {"text": "back"})
        assert pool.connection("s").connects == 2
    assert died.code == ErrorCode.UNREACHABLE and "exited with code 3" in died.content
    assert again.content == "back"


async def test_hanging_tool_times_out_within_the_timeout_plus_a_margin() -> None:
    async with McpClientPool({"s": stdio(call_timeout=1.0)}, grace=0.3) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        started = time.perf_counter()
        result = await registry.call("s_hang", {})
        elapsed = time.perf_counter() - started
        assert (await registry.call("s_echo", {"text": "still up"})).content == "still up"
    assert result.code == ErrorCode.TIMEOUT and "1 s" in result.content
    assert elapsed < 1.0 + 2.0


async def test_server_that_never_answers_fails_the_connect_in_bounded_time() -> None:
    started = time.perf_counter()
    error = await _connect_error(
        stdio("echo_server.py", "--fault", "hang", connect_timeout=1.0, retries=0)
    )
    assert error.code == ErrorCode.TIMEOUT
    assert time.perf_counter() - started < 1.0 + 0.3 * 3 + 2.0


async def test_http_server_works_and_sends_allowlisted_headers(
    http_config: dict[str, Any],
) -> None:
    from toolkit.context import ToolContext

    config = http_config
    async with McpClientPool({"h": config}) as pool:
        echo = await pool.call("h", "echo", {"text": "over http"})
        who = await pool.call("h", "whoami", {}, ToolContext(values={"tenant": "acme"}))
        assert "s3cret-token" not in repr(pool.config("h"))
    assert echo.content == "over http"
    assert who.structured["tenant_header"] == "acme"


async def test_http_slow_tool_times_out_and_the_connection_stays(
    http_config: dict[str, Any],
) -> None:
    async with McpClientPool({"h": {**http_config, "call_timeout": 0.5}}) as pool:
        registry = ToolRegistry()
        await pool.register_into(registry)
        started = time.perf_counter()
        late = await registry.call("h_slow", {"ms": 3000})
        elapsed = time.perf_counter() - started
        again = await registry.call("h_echo", {"text": "still up"})
        assert pool.connection("h").connects == 1
    assert late.code == ErrorCode.TIMEOUT and "did not finish within 0.5 s" in late.content
    assert "not marked idempotent" in late.content  # it may have run: not sent again
    assert elapsed < 0.5 + 2.0
    assert again.content == "still up"


async def test_http_401_is_auth_failed_without_the_secret(
    http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_MCP_TOKEN", "wrong-token-value")
    config = {"url": http_server, "auth": {"type": "bearer", "token": "${TEST_MCP_TOKEN}"}}
    error = await _connect_error(config)
    assert error.code == ErrorCode.AUTH_FAILED and "401" in error.message
    assert "wrong-token-value" not in error.message and not error.retryable


async def test_connection_refused_is_unreachable_and_says_what_to_check() -> None:
    error = await _connect_error({"url": "http://127.0.0.1:9/mcp", "retries": 0})
    assert error.code == ErrorCode.UNREACHABLE
    # Never reached: the pool's own attempts are over, and the same call would fail the same way.
    assert not error.retryable
    assert "Check its 'url' (http://127.0.0.1:9/mcp) in the config" in error.message
    assert "try again" not in error.message


async def test_a_stdio_server_that_does_not_start_says_to_check_its_command() -> None:
    config = {"command": sys.executable, "args": ["-c", "import no_such_module"], "retries": 0}
    error = await _connect_error(config)
    assert error.code == ErrorCode.UNREACHABLE and not error.retryable
    assert "No module named 'no_such_module'" in error.message  # its own words, from stderr
    assert "Check its 'command' and 'args'" in error.message
    assert "try again" not in error.message


async def test_network_policy_denies_metadata_and_private_targets() -> None:
    metadata = await _connect_error({"url": "http://169.254.169.254/mcp"})
    assert metadata.code == ErrorCode.DENIED and "metadata" in metadata.message
    untrusted = await _connect_error({"url": "http://127.0.0.1:9/mcp", "trusted": False})
    assert untrusted.code == ErrorCode.DENIED and "loopback" in untrusted.message
    with pytest.raises(PermissionError):
        await NetworkPolicy.untrusted().check("http://10.1.2.3/mcp")


def test_config_files_name_the_server_and_field(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_supersecret")
    good = tmp_path / "mcp.yaml"
    good.write_text(
        "mcpServers:\n"
        "  github: {url: 'https://example.com/mcp', auth: {type: bearer, token: '${GH_TOKEN}'}}\n"
        "  local: {command: python, args: [server.py]}\n"
    )
    configs = load_mcp_config(good)
    assert configs["github"].transport == "streamable_http"
    assert configs["local"].transport == "stdio"
    assert "ghp_supersecret" not in repr(configs["github"]) + str(configs["github"].auth)
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"broken": {"command": "x", "retries": -1}}}')
    with pytest.raises(McpConfigError, match=r"broken.*retries"):
        load_mcp_config(bad)
    unset = tmp_path / "unset.json"
    unset.write_text(
        '{"mcpServers": {"gh": {"url": "https://x/mcp", "headers": {"A": "${NOPE_VAR}"}}}}'
    )
    with pytest.raises(McpConfigError, match=r"'gh'.*NOPE_VAR"):
        load_mcp_config(unset)
