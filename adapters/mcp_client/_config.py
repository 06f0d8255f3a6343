"""Server configuration: :class:`McpServerConfig`, ``${VAR}`` expansion and config files.

The file format is the one Claude Desktop, Cursor and VS Code share::

    {"mcpServers": {"github": {"url": "https://...", "auth": {"type": "bearer",
                                                            "token": "${GITHUB_TOKEN}"}}}}

A config keeps ``${VAR}`` templates as written; values are expanded only when a connection
is opened, so reprs, logs and error messages never contain the secrets they stand for.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from adapters._env_vars import auth_headers, expand_vars, masked, required_vars, secret_values

__all__ = [
    "AuthConfig",
    "McpConfigError",
    "McpServerConfig",
    "ServersArg",
    "load_mcp_config",
    "selected",
    "servers_from",
]

Transport = Literal["stdio", "streamable_http", "sse"]

_TRANSPORT_ALIASES: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "streamable_http",
    "streamable_http": "streamable_http",
    "streamable-http": "streamable_http",
    "streamableHttp": "streamable_http",
    "sse": "sse",
}


class McpConfigError(ValueError):
    """A server config is invalid; the message names the server, the field and the fix."""


class AuthConfig(BaseModel):
    """How an HTTP server authenticates us.

    Attributes:
        type: ``"none"``; ``"bearer"`` (``Authorization: Bearer <token>``); ``"header"``
            (``<header>: <token>``, e.g. an API-key header); ``"oauth"`` (a user signs in:
            authorization code with PKCE); ``"client_credentials"`` (a service signs in as
            itself: OAuth client credentials, with a client secret or a private-key JWT);
            ``"identity_assertion"`` (enterprise single sign-on, SEP-990: an ID token from
            the company's identity provider is exchanged for an identity assertion grant, which
            the server's authorization server trades for an access token).
        token: The credential, normally a ``${VAR}`` reference to an environment variable.
        header: The header name for ``type="header"``.
        scope: OAuth scopes to ask for (default: what the server advertises).
        client_id: A pre-registered OAuth client (``oauth``: default dynamic registration;
            required for ``client_credentials`` and ``identity_assertion``).
        client_secret: Its secret, normally a ``${VAR}`` reference.
        client_metadata_url: An HTTPS client id metadata document, where servers support it.
        redirect_uri: Loopback address the browser is sent back to after login.
        private_key: ``client_credentials`` with ``private_key_jwt``: the PEM private key the
            client signs its assertions with, normally a ``${VAR}`` reference.
        private_key_file: The same key read from a file.
        signing_algorithm: The JWT algorithm of ``private_key`` (``RS256``, ``ES256``…).
        token_auth: How the client authenticates at the token endpoint with its secret:
            ``client_secret_basic`` or ``client_secret_post``.
        issuer: The authorization server the client is registered with (its issuer URL).
            Required for ``identity_assertion``; recommended for ``client_credentials``, whose
            flow then refuses to follow a server to any other authorization server.
        idp_token_endpoint: ``identity_assertion``: the identity provider's token endpoint.
        idp_client_id: ``identity_assertion``: our client at the identity provider.
        idp_client_secret: Its secret at the identity provider, if it has one.
        id_token: ``identity_assertion``: the user's ID token from the identity provider,
            normally a ``${VAR}`` reference.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal[
        "none", "bearer", "header", "oauth", "client_credentials", "identity_assertion"
    ] = "none"
    token: str = ""
    header: str = "X-API-Key"
    scope: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    redirect_uri: str = "http://127.0.0.1:33418/callback"
    private_key: str | None = None
    private_key_file: str | None = None
    signing_algorithm: str = "RS256"
    token_auth: Literal["client_secret_basic", "client_secret_post"] | None = None
    issuer: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    id_token: str | None = None

    @model_validator(mode="after")
    def _check_kind(self) -> AuthConfig:
        missing: list[str] = []
        if self.type == "client_credentials":
            if not self.client_id:
                missing.append("'client_id'")
            keys = [k for k in (self.client_secret, self.private_key, self.private_key_file) if k]
            if len(keys) != 1:
                raise ValueError(
                    "auth type 'client_credentials' needs exactly one of 'client_secret' "
                    "(client_secret_basic/post) or 'private_key' / 'private_key_file' "
                    "(private_key_jwt)"
                )
        elif self.type == "identity_assertion":
            for name in ("client_id", "client_secret", "issuer", "idp_token_endpoint", "id_token"):
                if not getattr(self, name):
                    missing.append(f"'{name}'")
        if missing:
            raise ValueError(f"auth type {self.type!r} needs {', '.join(missing)}")
        return self

    def secret_fields(self) -> list[str]:
        """Every credential this config holds (templates, expanded only when sending)."""
        values = (self.token, self.client_secret, self.private_key)
        return [v for v in (*values, self.idp_client_secret, self.id_token) if v]

    def headers(self) -> dict[str, str]:
        """The headers to send, with variables expanded (call only when sending)."""
        return auth_headers(self.type, self.token, self.header)

    def __repr__(self) -> str:
        return f"AuthConfig(type={self.type!r})"


class McpServerConfig(BaseModel):
    """One MCP server: how to reach it and how to treat its tools.

    Attributes:
        name: The server's key in the config (the default prefix of its tool names).
        transport: ``stdio``, ``streamable_http`` or ``sse``; inferred from ``command``/``url``.
        command: Executable of a stdio server.
        args: Its arguments (``${VAR}`` expanded).
        env: Extra environment for a stdio server (``${VAR}`` expanded); the server never
            sees the rest of our environment.
        cwd: Working directory of a stdio server.
        url: Endpoint of an HTTP server.
        headers: Extra HTTP headers (``${VAR}`` expanded).
        auth: Credentials for an HTTP server.
        connect_timeout: Seconds to start, connect and negotiate the protocol.
        call_timeout: Seconds a tool call may take (``None``: no limit).
        retries: Reconnect attempts after a failed connect before a call gets ``UNREACHABLE``.
        call_retries: Extra attempts the invoker makes for a retryable failed call. A call
            that may have reached the server is re-sent only for an idempotent tool.
        idempotent: Tools (exact names or globs) that are safe to send again after a lost
            connection or a timeout, besides those the server marks ``idempotentHint`` or
            ``readOnlyHint``.
        max_message_bytes: The largest message a server may send (default 64 MiB): a stdio
            line, an HTTP answer or one event of a stream, counted decoded (gzip, deflate,
            br); a longer reply fails its call with a clear error and the next call works.
        include: Only these tools (exact names or globs); ``None`` keeps all.
        exclude: Leave out these tools (exact names or globs).
        prefix: Prefix for registry names; ``None`` uses ``name + "_"``, ``""`` none.
        context_headers: ``ToolContext.values`` key -> HTTP header sent with each call.
        context_meta: ``ToolContext.values`` key -> ``_meta`` key sent with each call.
        trusted: ``False`` applies the untrusted network policy (no private targets).
        trust: How the server's tool definitions are pinned (see docs/trust.md): ``None``
            checks them against the lock when the lock has the server, else not at all;
            ``"first-use"`` pins what the server lists first; ``"locked"`` offers none of its
            tools until ``toolkit mcp trust`` pinned them.
        new_tools: A tool the server lists after it was trusted: ``"hold"`` it until
            ``toolkit mcp trust`` accepts it, or ``"trust"`` (pin) it on first sight.
        protocol: ``"auto"`` (default) speaks 2026-07-28 to a server that does and falls back
            to the 2025-11-25 handshake; ``"legacy"`` always shakes hands (2025-11-25), e.g.
            to call a server's long tools as MCP tasks (see docs/tasks.md).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = ""
    transport: Transport = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    auth: AuthConfig = Field(default_factory=AuthConfig)
    connect_timeout: float = Field(default=15.0, gt=0)
    call_timeout: float | None = Field(default=60.0, gt=0)
    retries: int = Field(default=2, ge=0)
    call_retries: int = Field(default=0, ge=0)
    idempotent: tuple[str, ...] = ()
    max_message_bytes: int = Field(default=64 * 1024 * 1024, gt=0)
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    prefix: str | None = None
    context_headers: dict[str, str] = Field(default_factory=dict)
    context_meta: dict[str, str] = Field(default_factory=dict)
    trusted: bool = True
    trust: Literal["first-use", "locked"] | None = None
    new_tools: Literal["hold", "trust"] = "hold"
    protocol: Literal["auto", "legacy"] = "auto"

    @model_validator(mode="before")
    @classmethod
    def _infer_transport(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        kind = data.pop("type", None)
        if kind is not None and "transport" not in data:
            if kind not in _TRANSPORT_ALIASES:
                choices = ", ".join(sorted(_TRANSPORT_ALIASES))
                raise ValueError(f"type {kind!r} is not a transport; use one of: {choices}")
            data["transport"] = _TRANSPORT_ALIASES[kind]
        elif "transport" in data and data["transport"] in _TRANSPORT_ALIASES:
            data["transport"] = _TRANSPORT_ALIASES[data["transport"]]
        elif "transport" not in data and data.get("url") and not data.get("command"):
            data["transport"] = "streamable_http"
        return data

    @model_validator(mode="after")
    def _check_endpoint(self) -> McpServerConfig:
        if self.transport == "stdio" and not self.command:
            raise ValueError("a stdio server needs 'command' (or give 'url' for an HTTP server)")
        if self.transport != "stdio" and not self.url:
            raise ValueError(f"a {self.transport} server needs 'url'")
        scheme = (self.url or "").split(":", 1)[0].lower()
        if self.url and not self.url.startswith("${") and scheme not in ("http", "https"):
            raise ValueError(
                f"url {self.url.split('?')[0]!r} is not an http(s) URL; an MCP server over HTTP "
                "is reached at http(s)://host:port/path (use 'command' for a local server)"
            )
        return self

    @property
    def tool_prefix(self) -> str:
        """The prefix of registry names (the server key and ``_`` unless configured)."""
        return f"{self.name}_" if self.prefix is None else self.prefix

    @property
    def target(self) -> str:
        """What we connect to, as a person reads it.

        No secrets: ``${VAR}`` templates stay unexpanded and their defaults show as ``***``.
        """
        if self.transport == "stdio":
            return masked(" ".join([self.command or "", *self.args]).strip())
        return masked(self.url or "")

    def variables(self) -> list[str]:
        """Names of the environment variables this config refers to."""
        return required_vars(self._templated())

    def missing_variables(self) -> list[str]:
        """Referenced variables that are not set (and have no ``${VAR:-default}``)."""
        return [name for name in self.variables() if name not in os.environ]

    def secrets(self) -> list[str]:
        """Values of every ``${VAR}`` and every ``${VAR:-default}``: masked in every message."""
        return secret_values(self._templated())

    def _templated(self) -> list[str]:
        return [
            *self.args,
            *self.env.values(),
            *self.headers.values(),
            self.url or "",
            *self.auth.secret_fields(),
        ]

    def identity(self) -> tuple[Any, ...]:
        """The pool key: the config with its credentials expanded (never shown)."""
        return (
            self.transport,
            self.command,
            tuple(expand(a) for a in self.args),
            tuple(sorted((k, expand(v)) for k, v in self.env.items())),
            self.cwd,
            expand(self.url or ""),
            tuple(sorted((k, expand(v)) for k, v in self.http_headers().items())),
        )

    def http_headers(self) -> dict[str, str]:
        """Headers for an HTTP server, ``${VAR}`` expanded, auth included."""
        return {**{k: expand(v) for k, v in self.headers.items()}, **self.auth.headers()}

    def __repr__(self) -> str:
        return f"McpServerConfig(name={self.name!r}, transport={self.transport!r}, target={self.target!r})"

    __str__ = __repr__


#: Kept for callers of the earlier name.
expand = expand_vars


def parse_servers(data: Any, *, source: str = "config") -> dict[str, McpServerConfig]:
    """Build configs from ``{"mcpServers": {...}}`` (or ``{"servers": {...}}``) data.

    Raises:
        McpConfigError: The data is not a server map, or a server is invalid.
    """
    if not isinstance(data, Mapping):
        raise McpConfigError(
            f"{source}: expected an object with 'mcpServers', got {type(data).__name__}"
        )
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping):
        raise McpConfigError(
            f"{source}: no 'mcpServers' object found; write "
            '{"mcpServers": {"name": {"command": ...}}} (or "servers" as in VS Code)'
        )
    configs: dict[str, McpServerConfig] = {}
    for name, raw in servers.items():
        configs[name] = _parse_one(str(name), raw, source)
    return configs


def _parse_one(name: str, raw: Any, source: str) -> McpServerConfig:
    if not isinstance(raw, Mapping):
        raise McpConfigError(
            f"{source}: server {name!r} must be an object, got {type(raw).__name__}"
        )
    try:
        config = McpServerConfig.model_validate({**raw, "name": name})
    except ValidationError as exc:
        problems = "; ".join(
            f"field {'.'.join(str(p) for p in err['loc']) or '(server)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise McpConfigError(f"{source}: server {name!r}: {problems}") from None
    missing = config.missing_variables()
    if missing:
        raise McpConfigError(
            f"{source}: server {name!r} refers to unset environment variable(s) "
            f"{', '.join(missing)}; export them or write ${{VAR:-default}}"
        )
    return config


def load_mcp_config(path: str | Path) -> dict[str, McpServerConfig]:
    """Read a JSON or YAML file of MCP servers.

    Args:
        path: A ``.json``, ``.yaml`` or ``.yml`` file holding ``{"mcpServers": {...}}``.

    Returns:
        The server configs by name, in file order.

    Raises:
        McpConfigError: The file is missing, unreadable, or a server in it is invalid; the
            message names the file, the server and the field.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise McpConfigError(f"cannot read MCP config {file}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text) if file.suffix in (".yaml", ".yml") else json.loads(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise McpConfigError(
            f"{file}: not valid {file.suffix.lstrip('.') or 'JSON'}: {exc}"
        ) from None
    return parse_servers(data, source=str(file))


#: What a pool accepts as its servers.
ServersArg = (
    Mapping[str, McpServerConfig | Mapping[str, Any]] | Iterable[McpServerConfig] | str | Path
)


def servers_from(servers: ServersArg) -> dict[str, McpServerConfig]:
    """The servers of a config file, a config mapping, ``{name: config}`` or configs with names."""
    if isinstance(servers, str | Path):
        return load_mcp_config(servers)
    if isinstance(servers, Mapping):
        if "mcpServers" in servers or "servers" in servers:
            return parse_servers(servers)
        return {
            name: c.model_copy(update={"name": name})
            if isinstance(c, McpServerConfig)
            else parse_servers({"mcpServers": {name: c}})[name]
            for name, c in servers.items()
        }
    out: dict[str, McpServerConfig] = {}
    for config in servers:
        if not config.name:
            raise ValueError(f"{config!r} has no name; set McpServerConfig(name=...)")
        out[config.name] = config
    return out


def selected(tool: str, config: McpServerConfig) -> bool:
    """Whether ``tool`` passes the server's ``include``/``exclude`` patterns."""
    if config.include is not None and not any(fnmatch.fnmatchcase(tool, p) for p in config.include):
        return False
    return not any(fnmatch.fnmatchcase(tool, p) for p in config.exclude)
