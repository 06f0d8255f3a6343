"""Settings that could be misread are refused or warned about (issue 22, item 17).

``TOOLKIT_METRICS=maybe`` was read as off; a server bound to 0.0.0.0 without a token started
silently; with callers, ``initialize`` answered without a token; and an endpoint check matching
only a URL prefix accepted a placeholder in the host (``https://a{host}/x``).
"""

from __future__ import annotations

import logging

import httpx
import pytest

from adapters.http import HttpConfigError, HttpToolset
from adapters.mcp_server import ServeSettings, build_server, http_app, load_callers
from tests.support.serving import serving
from toolkit import ToolRegistry


@pytest.mark.parametrize("variable", ["TOOLKIT_METRICS", "TOOLKIT_OTEL", "TOOLKIT_OTEL_ARGUMENTS"])
def test_a_flag_that_is_neither_on_nor_off_is_refused(variable: str) -> None:
    with pytest.raises(ValueError, match=rf"\${variable}='maybe' is neither on nor off"):
        ServeSettings.from_env({"TOOLKIT_TARGET": "m", variable: "maybe"})
    off = ServeSettings.from_env({"TOOLKIT_TARGET": "m", variable: "off"})
    on = ServeSettings.from_env({"TOOLKIT_TARGET": "m", variable: "Yes"})
    field = {"TOOLKIT_METRICS": "metrics", "TOOLKIT_OTEL": "telemetry"}.get(
        variable, "trace_arguments"
    )
    assert getattr(off, field) is False and getattr(on, field) is True


def test_binding_every_address_without_a_token_logs_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolkit.server"):
        http_app(build_server(ToolRegistry()), host="0.0.0.0")
        warned = [r.getMessage() for r in caplog.records]
        caplog.clear()
        http_app(build_server(ToolRegistry()), host="0.0.0.0", token="t" * 32)
        http_app(build_server(ToolRegistry()), host="127.0.0.1")
        quiet = [r.getMessage() for r in caplog.records]
    assert len(warned) == 1 and "0.0.0.0 without a bearer token" in warned[0]
    assert "TOOLKIT_TOKEN_ENV" in warned[0] and "TOOLKIT_CALLERS" in warned[0]
    assert quiet == []


def test_with_callers_an_unauthenticated_initialize_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ONLY_TOKEN", "only-caller-token-0123456789")
    callers = load_callers({"callers": {"only": {"token": "${ONLY_TOKEN}"}}})
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "anonymous", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    app = http_app(build_server(ToolRegistry(), callers=callers), stateless=False)
    with serving(app) as base:
        anonymous = httpx.post(f"{base}/mcp", json=hello, headers=accept, timeout=20)
        known = httpx.post(
            f"{base}/mcp",
            json=hello,
            headers={**accept, "Authorization": "Bearer only-caller-token-0123456789"},
            timeout=20,
        )
    assert anonymous.status_code == 401 and "mcp-session-id" not in anonymous.headers
    assert known.status_code == 200 and known.headers["mcp-session-id"]


@pytest.mark.parametrize(
    "endpoint",
    ["https://a{host}/x", "https://api.test:{port}/x", "http://{host}", "https://a.test{p}"],
)
def test_a_placeholder_in_the_host_or_port_is_refused_at_load(endpoint: str) -> None:
    config = {"t": {"endpoint": endpoint, "parameters": []}}
    for name in ("host", "port", "p"):
        if "{" + name + "}" in endpoint:
            config["t"]["parameters"] = [{"name": name, "position": "path"}]
    with pytest.raises(HttpConfigError, match="fixed host and port"):
        HttpToolset.from_config(config)


def test_placeholders_after_the_host_still_load() -> None:
    config = {
        "t": {
            "endpoint": "https://api.test:8443/users/{id}",
            "parameters": [{"name": "id", "position": "path"}],
        }
    }
    assert [t.name for t in HttpToolset.from_config(config).tools] == ["t"]
