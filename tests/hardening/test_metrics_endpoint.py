"""``/metrics`` is guarded like ``/mcp`` and labels only registered tools (issue 22, item 5).

Before, the scrape endpoint answered without the server's token and without the ``Host`` check,
and every made-up tool name became a label: 300 calls with invented names took one scrape from
11 KB to 114 MB.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from adapters.mcp_server import ServeSettings, build_server, create_app, http_app, load_callers
from adapters.otel.prometheus import PrometheusMetrics
from tests.support.serving import serving
from toolkit import ToolRegistry

TOKEN = "metrics-token-0123456789abcdef"
HEADERS = {"Accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
MADE_UP = 40


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    mp = pytest.MonkeyPatch()
    mp.setenv("METRICS_TEST_TOKEN", TOKEN)
    settings = ServeSettings(
        target="tests.support.served_registry:registry",
        token_env="METRICS_TEST_TOKEN",
        metrics=True,
        telemetry=False,
    )
    with serving(create_app(settings)) as url:
        yield url
    mp.undo()


def _scrape(base: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{base}/metrics", headers=headers, timeout=20)


def _call(base: str, name: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}}
    auth = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
    assert httpx.post(f"{base}/mcp", json=body, headers=auth, timeout=20).status_code == 200


def test_the_scrape_needs_the_servers_token(base: str) -> None:
    assert _scrape(base).status_code == 401
    assert _scrape(base, Authorization="Bearer wrong-token-0123456789").status_code == 401
    assert _scrape(base, Authorization=f"Bearer {TOKEN}").status_code == 200


def test_the_scrape_passes_the_host_check(base: str) -> None:
    rebound = _scrape(base, Authorization=f"Bearer {TOKEN}", Host="attacker.example")
    assert rebound.status_code == 421
    assert "toolkit_tool_calls" not in rebound.text


def test_made_up_tool_names_share_one_label(base: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    _call(base, "made_up_tool_0")
    before = _scrape(base, **auth).text
    for n in range(1, MADE_UP):
        _call(base, f"made_up_tool_{n}")
    after = _scrape(base, **auth).text
    assert not [n for n in range(MADE_UP) if f"made_up_tool_{n}" in after]
    assert 'tool="_unknown"' in after
    assert len(after.splitlines()) == len(before.splitlines())  # no new series


def test_with_callers_the_scrape_needs_a_callers_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRAPER_TOKEN", "scraper-token-0123456789abcdef")
    callers = load_callers({"callers": {"scraper": {"token": "${SCRAPER_TOKEN}"}}})
    registry = ToolRegistry()
    metrics = PrometheusMetrics()
    metrics.attach(registry)
    app = http_app(build_server(registry, callers=callers), metrics=metrics.asgi_app())
    with serving(app) as url:
        anonymous = _scrape(url)
        known = _scrape(url, Authorization="Bearer scraper-token-0123456789abcdef")
    assert anonymous.status_code == 401
    assert known.status_code == 200 and "toolkit_tool_calls" in known.text
