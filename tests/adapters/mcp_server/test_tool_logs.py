"""A tool's own ``logging.getLogger("toolkit.<anything>")`` records reach the calling client,
sync or async tool, before the call's result, at the level the client asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

ROOT = Path(__file__).resolve().parents[3]


async def test_a_tools_own_records_reach_the_client_of_toolkit_serve() -> None:
    received: list[tuple[str, str, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append((params.level, str(params.data), params.logger))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["-m", "adapters.mcp_server", "tests.support.logging_tools"]
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))
    async with Client(params, mode="legacy", logging_callback=on_log) as client:
        await client.set_logging_level("info")
        await client.call_tool("sync_pick", {"order_id": 7})
        after_sync = list(received)
        await client.call_tool("async_pick", {"order_id": 8})
        after_async = list(received)
        await client.set_logging_level("warning")
        await client.call_tool("async_pick", {"order_id": 9})
    # Each call's records arrived before its result; DEBUG stays out, the call summary too.
    assert after_sync == [
        ("info", "picking order 7", "toolkit.shop.orders"),
        ("warning", "order 7 is late", "toolkit.shop.orders"),
    ]
    assert after_async[2:] == [
        ("info", "picking order 8", "toolkit.shop.orders"),
        ("warning", "order 8 is late", "toolkit.shop.orders"),
    ]
    assert received[4:] == [("warning", "order 9 is late", "toolkit.shop.orders")]


@pytest.mark.parametrize(
    ("options", "summary_made"), [((), False), (("--log-level", "INFO"), True)]
)
def test_the_call_summary_is_made_only_where_a_handler_prints_it(
    options: tuple[str, ...], summary_made: bool
) -> None:
    # The summary line is never relayed; with nothing printing INFO it is not built per call,
    # while a tool's own INFO records still exist for the relay.
    probe = (
        "import logging, sys; from adapters.cli._app import setup_logging;"
        "from adapters.mcp_server._log_relay import relay_info_records;"
        "setup_logging(False, sys.argv[2] if len(sys.argv) > 2 else None); relay_info_records();"
        "print(logging.getLogger('toolkit.calls').isEnabledFor(logging.INFO),"
        " logging.getLogger('toolkit.shop.orders').isEnabledFor(logging.INFO))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", probe, *options], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [str(summary_made), "True"]


def test_toolkit_serve_at_info_prints_each_calls_summary() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    request = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sync_pick",'
        '"arguments":{"order_id":7},"_meta":{'
        '"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        '"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},'
        '"io.modelcontextprotocol/clientCapabilities":{}}}}\n'
    )
    run = "from adapters._entry import main; main()"
    args = ["-c", run, "--log-level", "INFO", "serve", "tests.support.logging_tools"]
    with subprocess.Popen(
        [sys.executable, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=str(ROOT),
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(request)
        server.stdin.flush()
        reply = server.stdout.readline()  # the stdin stays open until the call is answered
        _, stderr = server.communicate(timeout=60)
    assert '"result"' in reply, stderr
    assert "INFO toolkit.calls: call " in stderr and "sync_pick -> ok" in stderr
