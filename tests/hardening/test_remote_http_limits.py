"""A remote MCP server over HTTP cannot flood the client: answers are capped, calls end in time.

The server (``hostile_mcp_http``) answers ``initialize`` and ``tools/list`` well, then its
tools answer with a gzip bomb, an endless event, or a byte every 0.3 s. Each bad call ends
with a clear error naming the server and ``max_message_bytes`` (or a timeout), memory stays
near the cap (traced), and the next call on the same connection works.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from adapters.mcp_client import McpClientPool
from tests.hardening import hostile_mcp_http
from tests.support.serving import serving
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode

CAP = 2_000_000
MiB = 1024 * 1024


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(hostile_mcp_http.app) as base:
        yield f"{base}/mcp"


def _run(
    url: str, calls: list[tuple[str, dict[str, Any]]], hold: float = 0.0, **config: Any
) -> dict[str, Any]:
    """Make ``calls`` in order on one pool; each result with its seconds and traced peak.

    The pool stays open ``hold`` seconds more, or until the drip stream has ended.
    """

    async def main() -> dict[str, Any]:
        server = {"url": url, "max_message_bytes": CAP, "retries": 0, **config}
        out: dict[str, Any] = {"results": []}
        async with McpClientPool({"h": server}) as pool:
            registry = ToolRegistry(result_budget=0)  # transport limits, not the model's budget
            await pool.register_into(registry)
            for name, arguments in calls:
                tracemalloc.start()
                started = time.monotonic()
                try:
                    result = await registry.call(f"h_{name}", arguments)
                    seconds = time.monotonic() - started
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                out["results"].append((result, seconds, peak))
            out["connects"] = pool.connection("h").connects
            with anyio.move_on_after(hold):
                while "drip_ended" not in hostile_mcp_http.STATE:
                    await anyio.sleep(0.05)
        return out

    return anyio.run(main)


def _assert_capped(result: Any) -> None:
    assert result.is_error
    assert result.error.code == ErrorCode.PROTOCOL_ERROR
    assert "MCP server 'h'" in result.error.message
    assert "max_message_bytes" in result.error.message
    assert str(CAP) in result.error.message


def test_a_gzip_bomb_stops_at_the_cap_and_the_next_call_works(url: str) -> None:
    out = _run(url, [("bomb", {}), ("ok", {})])
    (bomb, _, peak), (ok, _, _) = out["results"]
    # The bomb decodes to 256 MiB; the client never holds much more than the cap.
    assert peak < 8 * MiB
    _assert_capped(bomb)
    assert ok.content == "xxxx"
    assert out["connects"] == 1


def test_an_endless_event_stops_at_the_cap_and_the_next_call_works(url: str) -> None:
    out = _run(url, [("endless_event", {}), ("ok", {})])
    (endless, _, peak), (ok, _, _) = out["results"]
    assert peak < 8 * MiB
    _assert_capped(endless)
    assert ok.content == "xxxx"
    assert out["connects"] == 1


def test_an_event_up_to_max_message_bytes_is_read(url: str) -> None:
    # The SDK's own default stops events at 1 MiB; the server's setting decides instead.
    out = _run(url, [("big_event", {"size": 1_500_000}), ("big_event", {"size": CAP})])
    (big, _, _), (over, _, _) = out["results"]
    assert not big.is_error and big.content == "x" * 1_500_000
    _assert_capped(over)


def test_a_dripping_server_does_not_extend_a_call_nor_hold_the_client(url: str) -> None:
    hostile_mcp_http.STATE.clear()
    started = time.monotonic()
    calls = [("drip", {}), ("ok", {})]
    out = _run(url, calls, hold=6.0, call_timeout=1.0, connect_timeout=2.0)
    (drip, seconds, _), (ok, _, _) = out["results"]
    assert drip.is_error and drip.error.code == ErrorCode.TIMEOUT
    assert seconds < 2.5  # a 1 s total deadline, not 1 s between bytes (60 bytes take 18 s)
    assert ok.content == "xxxx"
    # The SDK's reader of the abandoned answer lets go at the body's deadline (2 s), while
    # the connection stays open for other calls.
    assert hostile_mcp_http.STATE["drip"] == "closed by client"
    assert hostile_mcp_http.STATE["drip_ended"] - started < 5
