"""``${VAR}`` and ``${VAR:-default}``: expanded late, and neither values nor defaults shown."""

from __future__ import annotations

import pytest

from adapters._env_vars import expand_vars, masked, required_vars, secret_values
from adapters.http import HttpToolset
from adapters.mcp_client import McpClientPool


def test_defaults_are_secrets_like_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TK_TOKEN", "value-from-env")
    monkeypatch.delenv("TK_MISSING", raising=False)
    texts = ["Bearer ${TK_TOKEN}", "${TK_MISSING:-default-secret}", "${TK_SHORT:-ab}"]
    assert expand_vars(texts[1]) == "default-secret"
    assert required_vars(texts) == ["TK_TOKEN"]
    assert secret_values(texts) == ["default-secret", "value-from-env"]
    assert (
        masked("k=${TK_MISSING:-default-secret}&t=${TK_TOKEN}")
        == "k=${TK_MISSING:-***}&t=${TK_TOKEN}"
    )


def test_server_reprs_hide_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TK_KEY", raising=False)
    pool = McpClientPool(
        {"mcpServers": {"svc": {"url": "http://127.0.0.1:9/mcp?key=${TK_KEY:-default-secret}"}}}
    )
    shown = [repr(pool), *(repr(c) for c in pool._configs.values())]
    shown.append(pool._repr_html_())
    assert not any("default-secret" in text for text in shown)
    assert any("${TK_KEY:-***}" in text for text in shown)


def test_http_tool_messages_mask_header_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TK_KEY", raising=False)
    config = {
        "probe": {
            "endpoint": "http://127.0.0.1:9/x",
            "headers": {"X-Key": "${TK_KEY:-default-secret}"},
        }
    }
    with HttpToolset.from_config(config) as toolset:
        tool = toolset.tools[0]
        assert tool.config.secrets() == ["default-secret"]
        assert tool._mask("sent X-Key: default-secret") == "sent X-Key: ***"
