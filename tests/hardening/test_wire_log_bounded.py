"""The wire log keeps only what it shows: it never reads a body for itself, nor holds it whole.

A loopback service answers with 20 MB (plain or gzip) or with a token ahead of a long
padding. The caller streams the body; the log line still comes, with the real size, a
truncated and masked head, and the caller gets every byte.
"""

from __future__ import annotations

import gzip
import logging
import tracemalloc
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.support.serving import serving
from toolkit.records.wire_log import httpx_event_hooks

SIZE = 20_000_000
CHUNK = b"y" * 100_000
ZIPPED = gzip.compress(CHUNK * (SIZE // len(CHUNK)))
PADDED = b'{"access_token": "tok-998877665544", "pad": "' + b"p" * 50_000 + b'"}'


async def _big() -> AsyncIterator[bytes]:
    for _ in range(SIZE // len(CHUNK)):
        yield CHUNK


async def big(request: Request) -> Response:
    return StreamingResponse(_big(), media_type="application/octet-stream")


async def zipped(request: Request) -> Response:
    return Response(ZIPPED, media_type="text/plain", headers={"content-encoding": "gzip"})


async def padded(request: Request) -> Response:
    return Response(PADDED, media_type="application/json")


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    app = Starlette(routes=[Route("/big", big), Route("/zipped", zipped), Route("/padded", padded)])
    with serving(app) as url:
        yield url


async def _stream(base: str, path: str) -> tuple[int, int]:
    """Stream ``path`` without keeping it; (bytes the caller got, traced peak)."""
    hooks = httpx_event_hooks(limit=200)
    got = 0
    async with httpx.AsyncClient(base_url=base, event_hooks=hooks) as client:
        tracemalloc.start()
        try:
            async with client.stream("GET", path) as response:
                async for chunk in response.aiter_bytes():
                    got += len(chunk)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return got, peak


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["/big", "/zipped"])
async def test_the_log_holds_only_the_head_and_the_caller_gets_every_byte(
    base: str, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="toolkit.wire"):
        got, peak = await _stream(base, path)
    assert got == SIZE
    if path == "/big":  # httpx itself inflates a gzip chunk whole: only a plain body shows it
        assert peak < 4_000_000  # 20 MB; reading the body whole for the log held all of it
    (line,) = [r.getMessage() for r in caplog.records if r.name == "toolkit.wire"]
    assert f"GET {base}{path} -> 200" in line
    assert "response=yyyy" in line and len(line) < 600  # a gzip head is shown decoded
    sent = SIZE if path == "/big" else len(ZIPPED)
    assert f"got {sent} B" in line and f"(of {sent} B)" in line


@pytest.mark.anyio
async def test_a_cut_json_head_still_has_its_secrets_masked(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = httpx_event_hooks(limit=100)
    async with httpx.AsyncClient(base_url=base, event_hooks=hooks) as client:
        with caplog.at_level(logging.DEBUG, logger="toolkit.wire"):
            response = await client.get("/padded")
    assert response.content == PADDED  # the caller's body is untouched
    (line,) = [r.getMessage() for r in caplog.records if r.name == "toolkit.wire"]
    assert "tok-998877665544" not in line
    assert '"access_token": "***"' in line and f"(of {len(PADDED)} B)" in line
