"""OAuth tokens are kept per server in a file only its owner can read."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthToken

from adapters.mcp_client import FileTokenStorage, McpServerConfig, token_path
from adapters.mcp_client._handlers import oauth_for

pytestmark = pytest.mark.anyio


async def test_tokens_round_trip_in_a_user_only_file(tmp_path: Path) -> None:
    storage = FileTokenStorage(tmp_path / "oauth" / "github.json")
    assert await storage.get_tokens() is None
    await storage.set_tokens(OAuthToken(access_token="at-1", refresh_token="rt-1"))
    again = await FileTokenStorage(storage.path).get_tokens()
    assert again is not None and again.access_token == "at-1" and again.refresh_token == "rt-1"
    assert stat.S_IMODE(storage.path.stat().st_mode) == 0o600


def test_token_file_lives_under_mcp_toolkit_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOOLKIT_HOME", "/srv/home")
    assert token_path("git hub") == Path("/srv/home/oauth/git_hub.json")


def test_an_oauth_server_gets_the_sdks_oauth_provider_and_no_static_header(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MCP_TOOLKIT_HOME", str(tmp_path))
    monkeypatch.setenv("GH_SECRET", "very-secret-value")
    config = McpServerConfig.model_validate(
        {
            "name": "gh",
            "url": "http://127.0.0.1:9/mcp",
            "auth": {"type": "oauth", "client_id": "cid", "client_secret": "${GH_SECRET}"},
        }
    )
    assert "Authorization" not in config.http_headers()
    assert "very-secret-value" in config.secrets()
    provider = oauth_for(config, None)
    assert type(provider).__name__ == "OAuthClientProvider"
    # A pre-registered client is stored, so no dynamic registration happens.
    assert '"client_id": "cid"' in (tmp_path / "oauth" / "gh.json").read_text()
