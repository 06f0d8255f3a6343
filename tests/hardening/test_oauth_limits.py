"""OAuth endpoints the library calls itself are bounded: a bomb stops at the cap, a drip at the deadline.

A hostile identity provider answers the ID-JAG token exchange with a gzip bomb (256 MiB
decoded) or a byte every 0.3 s; a hostile authorization server redirects with an endless body.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from adapters.mcp_client import headless_flow
from adapters.mcp_client._service_auth import fetch_id_jag
from tests.hardening.hostile_mcp_http import gzip_bomb
from tests.support.serving import serving

MiB = 1024 * 1024


async def bomb(request: Request) -> Response:
    stream = gzip_bomb(b'{"access_token": "')
    return StreamingResponse(
        stream, media_type="application/json", headers={"content-encoding": "gzip"}
    )


async def _drip() -> AsyncIterator[bytes]:
    for byte in b'{"access_token": "jag-' + b"x" * 40 + b'"}':
        yield bytes([byte])
        await anyio.sleep(0.3)


async def drip(request: Request) -> Response:
    return StreamingResponse(_drip(), media_type="application/json")


async def _endless() -> AsyncIterator[bytes]:
    for _ in range(4096):
        yield b"z" * 65536
        await anyio.sleep(0)


async def authorize(request: Request) -> Response:
    headers = {"location": "http://127.0.0.1:1/callback?code=c-1&state=s"}
    return StreamingResponse(_endless(), status_code=302, headers=headers)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    app = Starlette(
        routes=[
            Route("/bomb", bomb, methods=["POST"]),
            Route("/drip", drip, methods=["POST"]),
            Route("/authorize", authorize),
        ]
    )
    with serving(app) as url:
        yield url


def test_a_bombing_identity_provider_is_cut_at_the_cap(base: str) -> None:
    provide = fetch_id_jag(f"{base}/bomb", id_token="id", timeout=20)

    async def main() -> tuple[BaseException | None, int]:
        tracemalloc.start()
        try:
            await provide("https://as.example", "https://mcp.example")
        except Exception as exc:
            return exc, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return None, 0

    error, peak = anyio.run(main)
    assert peak < 8 * MiB  # 256 MiB decoded when read whole
    assert isinstance(error, PermissionError)
    assert "more than 1048576 bytes" in str(error) and f"{base}/bomb" in str(error)


def test_a_dripping_identity_provider_ends_at_the_total_deadline(base: str) -> None:
    provide = fetch_id_jag(f"{base}/drip", id_token="id", timeout=1.0)
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="did not answer the token exchange within 1 s"):
        anyio.run(provide, "https://as.example", "https://mcp.example")
    # 1 s in all, not 1 s between bytes (the answer takes 19 s to drip).
    assert time.monotonic() - started < 3


def test_the_headless_flow_reads_the_redirect_head_only(base: str) -> None:
    flow = headless_flow()

    async def main() -> tuple[str, int]:
        await flow.open(f"{base}/authorize")
        tracemalloc.start()
        try:
            result = await flow.wait()
            return result.code, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    code, peak = anyio.run(main)
    assert code == "c-1"
    assert peak < 8 * MiB  # the redirect's body is 256 MiB
