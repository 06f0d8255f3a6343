"""Services sign in as themselves: OAuth client credentials with a client secret or a private-key
JWT, against a real authorization server and a real MCP server on 127.0.0.1."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from adapters.mcp_client import McpClientPool, McpConfigError
from adapters.mcp_server import build_server, http_app
from tests.support.serving import serving
from toolkit import ErrorCode, ToolError, ToolRegistry, mcp_tool

ACCESS = "access-token-for-the-service-0123456789"
SECRET = "service-secret-0123456789"
KEY = ec.generate_private_key(ec.SECP256R1())
PEM = KEY.private_bytes(
    serialization.Encoding.PEM,
    serialization.PrivateFormat.PKCS8,
    serialization.NoEncryption(),
).decode()


@mcp_tool
def stock(sku: str) -> str:
    """Say how many items of a SKU are in stock."""
    return f"{sku}: 12"


class AuthorizationServer:
    """Token endpoint for client credentials; it records each grant it saw."""

    def __init__(self) -> None:
        self.base = ""
        self.grants: list[dict[str, Any]] = []

    async def metadata(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "issuer": self.base,
                "authorization_endpoint": f"{self.base}/authorize",
                "token_endpoint": f"{self.base}/token",
                "grant_types_supported": ["client_credentials"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"],
                "response_types_supported": ["code"],
            }
        )

    async def resource(self, request: Request) -> JSONResponse:
        return JSONResponse({"resource": f"{self.base}/mcp", "authorization_servers": [self.base]})

    async def token(self, request: Request) -> Response:
        form = dict(await request.form())
        basic = request.headers.get("authorization", "")
        if basic.startswith("Basic "):
            client, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
            ok = client == "svc" and secret == SECRET
            self.grants.append({"how": "client_secret_basic", "client": client, **form})
        else:
            public = KEY.public_key()
            claims = jwt.decode(
                str(form.get("client_assertion", "")), public, ["ES256"], audience=self.base
            )
            ok = claims["iss"] == claims["sub"] == "svc"
            self.grants.append({"how": "private_key_jwt", "claims": claims, **form})
        if not ok or form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        return JSONResponse({"access_token": ACCESS, "token_type": "Bearer", "expires_in": 3600})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[AuthorizationServer]:
    monkeypatch.setenv("MCP_TOOLKIT_HOME", str(tmp_path))
    registry = ToolRegistry()
    registry.register(stock)
    auth = AuthorizationServer()
    oauth = Starlette(
        routes=[
            Route("/.well-known/oauth-authorization-server", auth.metadata),
            Route("/.well-known/oauth-protected-resource/mcp", auth.resource),
            Route("/token", auth.token, methods=["POST"]),
        ]
    )
    mcp = http_app(build_server(registry), token=ACCESS)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        ours = scope["type"] == "http" and (path == "/token" or path.startswith("/.well-known"))
        await (oauth if ours else mcp)(scope, receive, send)

    with serving(app) as base:
        auth.base = base
        yield auth


async def _call(base: str, auth: dict[str, Any]) -> str:
    config = {"mcpServers": {"inv": {"url": f"{base}/mcp", "auth": auth}}}
    async with McpClientPool(config) as pool:
        result = await pool.call("inv", "stock", {"sku": "B-7"})
    return result.content


@pytest.mark.anyio
async def test_a_client_secret_gets_a_token_and_the_call_goes_through(
    server: AuthorizationServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SVC_SECRET", SECRET)
    auth = {
        "type": "client_credentials",
        "client_id": "svc",
        "client_secret": "${SVC_SECRET}",
        "issuer": server.base,
    }
    assert await _call(server.base, auth) == "B-7: 12"
    (grant,) = server.grants
    assert grant["how"] == "client_secret_basic" and grant["grant_type"] == "client_credentials"


@pytest.mark.anyio
async def test_a_private_key_signs_the_assertion(
    server: AuthorizationServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key_file = tmp_path / "svc.pem"
    key_file.write_text(PEM)
    auth = {
        "type": "client_credentials",
        "client_id": "svc",
        "private_key_file": str(key_file),
        "signing_algorithm": "ES256",
        "issuer": server.base,
    }
    assert await _call(server.base, auth) == "B-7: 12"
    (grant,) = server.grants
    assert grant["how"] == "private_key_jwt"
    assert (
        grant["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    )
    assert grant["claims"]["aud"] == server.base


@pytest.mark.anyio
async def test_a_wrong_secret_is_a_clear_auth_failure(
    server: AuthorizationServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("SVC_SECRET", "not-the-secret-at-all")
    auth = {"type": "client_credentials", "client_id": "svc", "client_secret": "${SVC_SECRET}"}
    with pytest.raises(ToolError) as failed, caplog.at_level("WARNING", logger="toolkit.mcp"):
        await _call(server.base, auth)
    assert failed.value.code is ErrorCode.AUTH_FAILED
    assert "check 'client_id' and 'client_secret' or the private key" in failed.value.message
    assert "not-the-secret-at-all" not in str(failed.value)
    # Without 'issuer' the MCP server picks where the secret goes: the log says so.
    assert "has no 'issuer'" in caplog.text and "not-the-secret-at-all" not in caplog.text


@pytest.mark.parametrize(
    ("auth", "says"),
    [
        ({"type": "client_credentials", "client_id": "svc"}, "exactly one of 'client_secret'"),
        (
            {
                "type": "client_credentials",
                "client_id": "svc",
                "client_secret": "s",
                "private_key": "k",
            },
            "exactly one of 'client_secret'",
        ),
        ({"type": "client_credentials", "client_secret": "s"}, "needs 'client_id'"),
        ({"type": "identity_assertion", "client_id": "c"}, "'issuer', 'idp_token_endpoint'"),
    ],
)
def test_an_incomplete_service_auth_is_refused_when_the_config_loads(
    auth: dict[str, Any], says: str
) -> None:
    with pytest.raises(McpConfigError, match=says):
        McpClientPool({"mcpServers": {"inv": {"url": "http://127.0.0.1:9/mcp", "auth": auth}}})


def test_secrets_stay_out_of_the_config_repr() -> None:
    config = {
        "url": "http://127.0.0.1:9/mcp",
        "auth": {"type": "client_credentials", "client_id": "svc", "private_key": PEM},
    }
    pool = McpClientPool({"mcpServers": {"inv": config}})
    assert "PRIVATE KEY" not in repr(pool) and "PRIVATE KEY" not in repr(pool.config("inv"))
