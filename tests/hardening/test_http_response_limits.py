"""HTTP endpoint tools read a bounded answer within a total deadline, and mask echoed secrets.

A loopback service serves compression bombs (gzip, deflate, br, stacked), an endless compressed
stream, an answer dripped a byte at a time, and an answer that echoes the request's API key.
The tests count what happens: memory held (tracemalloc's peak), chunks the service had to send,
seconds the call took against the length of the drip.
"""

from __future__ import annotations

import asyncio
import gzip
import time
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import brotli
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from adapters.http import HttpConfigError, HttpToolset
from tests.support.serving import serving
from toolkit import ToolRegistry
from toolkit.errors import ErrorCode

MB = 1_000_000
#: Decoded size of each bomb: five times the default cap.
BOMB = 50 * MB
_ZEROS = b"0" * BOMB
_DEFLATER = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
BODIES = {
    "gzip": gzip.compress(_ZEROS, 9),
    "deflate": _DEFLATER.compress(_ZEROS) + _DEFLATER.flush(),
    "br": brotli.compress(_ZEROS, quality=5),
    "gzip, gzip": gzip.compress(gzip.compress(_ZEROS, 9), 9),
}
del _ZEROS
SENT: dict[str, int] = {}


async def bomb(request: Request) -> Response:
    encoding = request.query_params["encoding"]
    status = int(request.query_params.get("status", "200"))
    return Response(
        BODIES[encoding],
        status_code=status,
        headers={"content-encoding": encoding, "content-type": "text/plain"},
    )


async def endless(request: Request) -> StreamingResponse:
    """A gzip stream of 1 MB of zeros per chunk, 60 chunks, counting what it sent."""

    async def chunks() -> AsyncIterator[bytes]:
        packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        block = b"0" * MB
        for index in range(60):
            SENT["endless"] = index + 1
            yield packer.compress(block) + packer.flush(zlib.Z_SYNC_FLUSH)
            await asyncio.sleep(0.01)
        yield packer.flush()

    return StreamingResponse(chunks(), headers={"content-encoding": "gzip"})


async def drip(request: Request) -> StreamingResponse:
    """A JSON answer one byte every 0.3 s: 40 bytes, 12 s in all."""

    async def chunks() -> AsyncIterator[bytes]:
        for index in range(40):
            SENT["drip"] = index + 1
            yield b" "
            await asyncio.sleep(0.3)
        yield b"{}"

    return StreamingResponse(chunks(), media_type="application/json")


async def sized(request: Request) -> Response:
    return Response(b"x" * int(request.query_params["n"]), media_type="text/plain")


async def echo(request: Request) -> JSONResponse:
    key = request.headers.get("x-api-key", "")
    return JSONResponse({"you_sent": key, "nested": [{"note": f"key={key}"}], key: "as a key"})


APP = Starlette(
    routes=[
        Route("/bomb", bomb),
        Route("/endless", endless),
        Route("/drip", drip),
        Route("/sized", sized),
        Route("/echo", echo),
    ]
)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serving(APP) as url:
        yield url


def call(base: str, path: str, **config: Any) -> tuple[Any, float, int]:
    """Call a GET tool for ``base + path``; return its result, seconds and peak bytes held."""
    tools = ToolRegistry()
    with HttpToolset.from_config({"t": {"endpoint": base + path, **config}}) as toolset:
        toolset.register_into(tools)
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            started = time.monotonic()
            result = tools.call_sync("t", {})
            seconds = time.monotonic() - started
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return result, seconds, peak


@pytest.mark.parametrize("encoding", list(BODIES))
def test_a_compression_bomb_stops_at_the_default_cap(base: str, encoding: str) -> None:
    result, _, peak = call(base, f"/bomb?encoding={encoding}")
    assert result.is_error and result.code is ErrorCode.EXECUTION_ERROR
    assert "larger than 10000000 bytes" in result.content
    assert "max_response_bytes" in result.content
    # Decoding all of it would hold 50 MB (and its text twice more); the cap holds 10 MB.
    assert peak < 16 * MB, f"held {peak / MB:.1f} MB"


def test_an_error_body_bomb_is_cut_not_decoded_whole(base: str) -> None:
    result, _, peak = call(base, "/bomb?encoding=gzip&status=500")
    assert result.code is ErrorCode.EXECUTION_ERROR
    assert "HTTP 500" in result.content and "000000" in result.content
    assert peak < 4 * MB, f"held {peak / MB:.1f} MB"


def test_a_stream_is_counted_as_it_arrives(base: str) -> None:
    SENT.clear()
    result, _, peak = call(base, "/endless", max_response_bytes=5 * MB)
    assert "larger than 5000000 bytes" in result.content
    assert peak < 8 * MB, f"held {peak / MB:.1f} MB"
    time.sleep(0.3)  # the service notices the closed connection
    assert SENT["endless"] < 20, f"read {SENT['endless']} MB of 60 before stopping"


def test_the_cap_is_settable_and_exact(base: str) -> None:
    ok, _, _ = call(base, "/sized?n=1000", max_response_bytes=1000)
    assert not ok.is_error and ok.content == "x" * 1000
    over, _, _ = call(base, "/sized?n=1001", max_response_bytes=1000)
    assert over.is_error and "larger than 1000 bytes" in over.content


def test_a_dripping_answer_ends_at_the_total_deadline(base: str) -> None:
    SENT.clear()
    result, seconds, _ = call(base, "/drip", timeout_seconds=1)
    assert result.code is ErrorCode.TIMEOUT
    assert "within 1 s" in result.content
    # Each byte came well within 1 s: only a deadline for the whole answer stops the call.
    assert seconds < 4, f"the call took {seconds:.1f} s of a 12 s drip"
    assert SENT["drip"] < 12


def test_a_two_xx_answer_echoing_the_api_key_is_masked(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_API_KEY", "k-live-9f8e7d6c5b")
    config = {"headers": {"X-API-Key": "${ECHO_API_KEY}"}}
    result, _, _ = call(base, "/echo", **config)
    assert not result.is_error
    assert "k-live-9f8e7d6c5b" not in result.content
    assert "k-live-9f8e7d6c5b" not in repr(result.structured)
    assert result.structured["you_sent"] == "***"
    assert result.structured["nested"] == [{"note": "key=***"}]
    templated, _, _ = call(base, "/echo", response_template="sent {{ you_sent }}", **config)
    assert templated.content == "sent ***"


def test_the_pool_serves_the_next_call_after_a_cut_off_one(base: str) -> None:
    config = {
        "drip": {"endpoint": base + "/drip", "timeout_seconds": 0.5},
        "bomb": {"endpoint": base + "/bomb?encoding=gzip", "max_response_bytes": 1000},
        "small": {"endpoint": base + "/sized?n=10"},
    }
    tools = ToolRegistry()
    with HttpToolset.from_config(config) as toolset:
        toolset.register_into(tools)
        outcomes = [tools.call_sync(name, {}) for name in ("drip", "bomb", "small", "small")]
    assert [r.code for r in outcomes[:2]] == [ErrorCode.TIMEOUT, ErrorCode.EXECUTION_ERROR]
    assert [r.content for r in outcomes[2:]] == ["x" * 10, "x" * 10]


def test_openapi_tools_take_the_limits_too(base: str) -> None:
    op = {
        "operationId": "sized",
        "parameters": [{"name": "n", "in": "query", "schema": {"type": "integer"}}],
    }
    doc = {"openapi": "3.1.0", "paths": {"/sized": {"get": op}}}
    tools = ToolRegistry()
    toolset = HttpToolset.from_openapi(
        doc, base_url=base, max_response_bytes=1000, timeout_seconds=5
    )
    with toolset:
        toolset.register_into(tools)
        ok, over = (tools.call_sync("sized", {"n": n}) for n in (1000, 1001))
    assert not ok.is_error and "larger than 1000 bytes" in over.content
    assert toolset.tools[0].config.timeout_seconds == 5
    with pytest.raises(HttpConfigError, match="max_response_bytes"):
        HttpToolset.from_openapi(doc, base_url=base, max_response_bytes=0)
