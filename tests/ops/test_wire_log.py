"""The wire debug log: real HTTP exchanges with a served registry, truncated and redacted."""

from __future__ import annotations

import logging

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from adapters.mcp_server import build_server, http_app
from tests.adapters.mcp_server.conftest import serving
from tests.support import served_registry
from toolkit.records.wire_log import (
    httpx_event_hooks,
    log_exchange,
    redact_headers,
    wire_log_enabled,
)

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.mark.anyio
async def test_each_exchange_is_one_redacted_truncated_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"api_key": "k-123456", "text": "x" * 3000}},
    }
    with serving(http_app(build_server(served_registry.build(), name="served"))) as base:
        hooks = httpx_event_hooks(secrets=["k-123456"], limit=300)
        async with httpx.AsyncClient(base_url=base, headers=ACCEPT, event_hooks=hooks) as client:
            with caplog.at_level(logging.DEBUG, logger="toolkit.wire"):
                response = await client.post("/mcp", json=body)
                health = await client.get("/healthz")
    assert response.status_code == 200 and health.status_code == 200
    lines = [r for r in caplog.records if r.name == "toolkit.wire"]
    assert len(lines) == 2
    call = lines[0].getMessage()
    assert call.startswith(f"http POST {base}/mcp -> 200 in ")
    assert '"api_key":"***"' in call and "k-123456" not in call
    assert "more chars)" in call and len(call) < 1000
    assert lines[0].wire["request_size"] > 3000  # type: ignore[attr-defined]
    assert lines[1].getMessage().startswith(f"http GET {base}/healthz -> 200")


def test_off_by_default_and_on_by_environment(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLKIT_WIRE_LOG", raising=False)
    logging.getLogger("toolkit.wire").setLevel(logging.NOTSET)
    assert not wire_log_enabled()
    with caplog.at_level(logging.INFO, logger="toolkit.wire"):
        log_exchange("mcp", "tools/call", "mcp://carriers/quote", status="ok", duration_ms=1.0)
        assert caplog.records == []
        monkeypatch.setenv("TOOLKIT_WIRE_LOG", "1")
        log_exchange(
            "mcp",
            "tools/call",
            "mcp://carriers/quote",
            status="ok",
            duration_ms=12.5,
            request_body='{"password": "pw-9999", "weight": 2}',
            response_body="quoted",
        )
    (line,) = caplog.records
    assert line.levelno == logging.INFO
    assert line.getMessage() == (
        "mcp tools/call mcp://carriers/quote -> ok in 12.5 ms (sent 36 B, got 6 B) "
        'request={"password":"***","weight":2} response=quoted'
    )
    assert redact_headers({"Authorization": "Bearer t", "X-Api-Key": "k", "Accept": "a"}) == {
        "Authorization": "***",
        "X-Api-Key": "***",
        "Accept": "a",
    }


async def _echo(request: Request) -> Response:
    """Answers with the URL it was called at and the body it got, as services often do."""
    body = (await request.body()).decode()
    return JSONResponse({"url": str(request.url), "error": f"bad request: {body}"}, 400)


@pytest.mark.anyio
async def test_a_secret_query_value_is_masked_everywhere_on_the_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    key = "k3y-0123456789abcdef"
    with serving(Starlette(routes=[Route("/echo", _echo, methods=["POST"])])) as base:
        hooks = httpx_event_hooks()
        async with httpx.AsyncClient(base_url=base, event_hooks=hooks) as client:
            with caplog.at_level(logging.DEBUG, logger="toolkit.wire"):
                response = await client.post(
                    "/echo",
                    params={"api_key": key, "q": "boots"},
                    content=f"note=the client sent {key} as its key",
                )
                await response.aread()
    assert key in response.text  # the service did echo it
    (line,) = [r for r in caplog.records if r.name == "toolkit.wire"]
    text = line.getMessage()
    assert "api_key=***" in text and "q=boots" in text
    assert key not in text and key not in str(line.wire)  # type: ignore[attr-defined]
    assert text.count("***") >= 3  # the URL, the request body and the echoed response
