"""Secrets in argument values stay out of records, the call log and spans (issue 22, item 8),
and credentials in query strings out of the wire log (item 10).

Before, only secret-named parameters were masked: ``password=hunter2`` inside a query, a bearer
token in a note, an ``sk-`` key, or the registry's own ``secrets=`` value reached call records,
the SQLite call log and OTel span attributes verbatim. Files the library creates to hold calls
or tokens are readable by their owner only.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from adapters.otel import instrument
from tests.support.serving import serving
from toolkit import ToolRegistry, mcp_tool
from toolkit.records.call_log import CallLog
from toolkit.records.wire_log import WIRE_LOG_ENV, httpx_event_hooks

REGISTRY_SECRET = "acme-internal-9f8e7d6c"
LEAKS = (
    "hunter2",
    "eyJhbGciOiJIUzI1NiJ9x",
    "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    REGISTRY_SECRET,
)
ARGUMENTS: dict[str, Any] = {
    "query": "login with password=hunter2 please",
    "note": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9x.abcdefgh",
    "filters": {"key": "sk-proj-abcdefghijklmnopqrstuvwxyz012345", "tags": [REGISTRY_SECRET]},
}


@mcp_tool
def search(query: str, note: str, filters: dict[str, Any]) -> str:
    """Search."""
    return "found"


def _leaks(text: str) -> list[str]:
    return [secret for secret in LEAKS if secret in text]


def _registry() -> ToolRegistry:
    registry = ToolRegistry(secrets=[REGISTRY_SECRET])
    registry.register(search)
    return registry


def test_call_records_keep_no_secret_values_on_both_entry_points() -> None:
    registry = _registry()
    sync = registry.call_sync("search", ARGUMENTS)
    asynchronous = asyncio.run(registry.call("search", ARGUMENTS))
    flat = registry.call_sync("search", {"query": ARGUMENTS["query"], "note": "", "filters": {}})
    for result in (sync, asynchronous, flat):
        assert not result.is_error
        assert result.record is not None
        assert _leaks(json.dumps(result.record.arguments)) == []
    assert result.record is not None and "password=***" in result.record.arguments["query"]


def test_the_sqlite_call_log_keeps_no_secret_values(tmp_path: Path) -> None:
    registry = _registry()
    path = tmp_path / "calls.db"
    log = CallLog(str(path)).attach(registry)
    registry.call_sync("search", ARGUMENTS)
    log.close()
    with sqlite3.connect(path) as db:
        rows = [row[0] for row in db.execute("SELECT arguments FROM calls")]
    assert len(rows) == 1
    assert _leaks(rows[0]) == []


def test_span_arguments_keep_no_secret_values() -> None:
    registry = _registry()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    undo = instrument(registry, arguments=True, tracer_provider=provider)
    try:
        registry.call_sync("search", ARGUMENTS)
    finally:
        undo()
    (span,) = exporter.get_finished_spans()
    recorded = str(dict(span.attributes or {}))
    assert "toolkit.call.arguments" in recorded
    assert _leaks(recorded) == []


def test_a_checkpoint_file_the_library_creates_is_owner_only(tmp_path: Path) -> None:
    from adapters.langgraph.persistence import sqlite_checkpointer

    path = tmp_path / "state" / "graph.db"
    saver = sqlite_checkpointer(path)
    saver.conn.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_oauth_token_store_is_owner_only(tmp_path: Path) -> None:
    from mcp.shared.auth import OAuthToken

    from adapters.mcp_client._oauth import FileTokenStorage

    store = FileTokenStorage(tmp_path / "oauth" / "server.json")
    asyncio.run(store.set_tokens(OAuthToken(access_token="abc", token_type="Bearer")))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


QUERY_SECRETS = {
    "api_key": "qk-api-1111",
    "access_token": "qk-access-2222",
    "token": "qk-token-3333",
    "key": "qk-key-4444",
    "secret": "qk-secret-5555",
    "password": "qk-password-6666",
    "sig": "qk-sig-7777",
}


def test_the_wire_log_masks_credentials_in_query_strings(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def ok(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    monkeypatch.setenv(WIRE_LOG_ENV, "1")
    app = Starlette(routes=[Route("/search", ok)])

    async def fetch(url: str) -> int:
        async with httpx.AsyncClient(event_hooks=httpx_event_hooks()) as client:
            return (await client.get(url, params={**QUERY_SECRETS, "q": "bins"})).status_code

    with serving(app) as base, caplog.at_level(logging.INFO, logger="toolkit.wire"):
        assert asyncio.run(fetch(f"{base}/search")) == 200
    lines = [r.getMessage() for r in caplog.records if r.name == "toolkit.wire"]
    targets = [str(getattr(r, "wire", {}).get("target")) for r in caplog.records]
    assert len(lines) == 1 and "q=bins" in lines[0]
    assert [v for v in QUERY_SECRETS.values() if v in lines[0] + " ".join(targets)] == []
