"""HTTP tool configuration: :class:`HttpToolConfig`, its parameters, and load-time checks.

A config keeps ``${VAR}`` templates as written; values are read only when a request is sent,
so reprs, specs, records and messages never contain the secrets they stand for. Every problem
of every tool is collected before :class:`HttpConfigError` is raised: nothing is half-loaded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adapters._env_vars import auth_headers, expand_vars, required_vars, secret_values
from adapters.http._body import DEFAULT_MAX_RESPONSE_BYTES

__all__ = [
    "HttpAuth",
    "HttpConfigError",
    "HttpParameter",
    "HttpToolConfig",
    "expand",
    "parse_tool_configs",
]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

Position = Literal["body", "query", "header", "path"]
POSITIONS: tuple[str, ...] = ("body", "query", "header", "path")
#: ``parameter_type`` (lower-cased) -> JSON Schema type.
TYPES: dict[str, str] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})


class HttpConfigError(ValueError):
    """An HTTP tool config is invalid; each line names the tool, the field and the fix.

    Attributes:
        problems: One line per problem, in file order.
    """

    def __init__(self, problems: list[str]) -> None:
        head = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
        super().__init__(f"HTTP tool config has {head}:\n" + "\n".join(f"- {p}" for p in problems))
        self.problems = problems


class HttpAuth(BaseModel):
    """How the endpoint authenticates us (the same shape as the MCP client's ``auth``).

    Attributes:
        type: ``"none"``, ``"bearer"`` (``Authorization: Bearer <token>``) or ``"header"``.
        token: The credential, normally a ``${VAR}`` reference.
        header: The header name for ``type="header"``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["none", "bearer", "header"] = "none"
    token: str = ""
    header: str = "X-API-Key"

    def headers(self) -> dict[str, str]:
        """The headers to send, with variables expanded (call only when sending)."""
        return auth_headers(self.type, self.token, self.header)

    def __repr__(self) -> str:
        return f"HttpAuth(type={self.type!r})"


class HttpParameter(BaseModel):
    """One parameter of an HTTP tool.

    Attributes:
        name: Name the model uses (and the query key, header name or JSON body key).
        parameter_type: String, Integer, Number, Boolean, Array or Object (any case).
        schema_: A JSON Schema for the value (``schema`` in files); overrides the type.
        description: For the model.
        required: The model must give it (unless it has a default).
        default_value: Used when the model leaves it out.
        enum_values: The allowed values.
        position: ``body`` (default; the query string for GET/HEAD/DELETE), ``query``,
            ``header`` or ``path``.
        value_from: ``"context.<key>"``: taken from the call's ``ToolContext`` and hidden
            from the model.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str
    parameter_type: str = "String"
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    description: str = ""
    required: bool = False
    default_value: Any = None
    enum_values: list[Any] | None = None
    position: str = "body"
    value_from: str | None = None

    @property
    def context_key(self) -> str | None:
        """The ``ToolContext`` key this parameter is bound to, if any."""
        if self.value_from and self.value_from.startswith("context."):
            return self.value_from.removeprefix("context.")
        return None

    def json_schema(self) -> dict[str, Any]:
        """The parameter's JSON Schema as the model sees it."""
        schema: dict[str, Any] = (
            dict(self.schema_) if self.schema_ else {"type": TYPES[self.type_key]}
        )
        if self.description and "description" not in schema:
            schema["description"] = self.description
        if self.enum_values is not None:
            schema["enum"] = list(self.enum_values)
        if self.default_value is not None:
            schema["default"] = self.default_value
        return schema

    @property
    def type_key(self) -> str:
        """``parameter_type`` lower-cased."""
        return self.parameter_type.lower()


class HttpToolConfig(BaseModel):
    """One HTTP endpoint as a tool.

    Attributes:
        description: What the tool does, for the model.
        endpoint: Absolute http(s) URL with ``{placeholders}`` for ``path`` parameters.
        method: HTTP method (any case).
        headers: Fixed headers; values may hold ``${VAR}`` / ``${VAR:-default}``.
        parameters: The tool's parameters.
        timeout_seconds: The total deadline of one attempt: waiting for a connection,
            connecting, sending and every read of the answer (not a per-read timeout).
        max_response_bytes: The most decoded bytes of a response (gzip, deflate and br are
            counted after decoding, as they arrive); a larger answer is an error result.
        retry_count: Retries after the first attempt (idempotent methods only, unless
            ``retry_non_idempotent``).
        retry_non_idempotent: Also re-send POST and PATCH.
        response_template: Jinja2 template turning a JSON response into text.
        auth: Authentication, as in the MCP client's config.
        read_only: Hint for approval policies (default: true for GET/HEAD/OPTIONS).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    endpoint: str
    method: str = "GET"
    headers: dict[str, str] = Field(default_factory=dict)
    parameters: list[HttpParameter] = Field(default_factory=list)
    timeout_seconds: float = Field(default=30.0, gt=0)
    max_response_bytes: int = Field(default=DEFAULT_MAX_RESPONSE_BYTES, gt=0)
    retry_count: int = Field(default=0, ge=0, le=10)
    retry_non_idempotent: bool = False
    response_template: str | None = None
    auth: HttpAuth = Field(default_factory=HttpAuth)
    read_only: bool | None = None

    @property
    def verb(self) -> str:
        """The method, upper-cased."""
        return self.method.upper()

    def variables(self) -> list[str]:
        """Environment variables referenced without a default."""
        return required_vars([*self.headers.values(), self.auth.token])

    def secrets(self) -> list[str]:
        """Values and defaults of referenced variables (masked in every message)."""
        return secret_values([*self.headers.values(), self.auth.token])

    def problems(self, tool: str) -> list[str]:
        """Every load-time problem of this config, each naming ``tool``, the field and the fix."""
        found: list[str] = []
        add = found.append
        if not _NAME.match(tool):
            add(f"{tool!r}: tool name must match ^[a-zA-Z0-9_-]{{1,64}}$; rename it")
        if self.verb not in METHODS:
            add(f"{tool}.method: {self.method!r} is not an HTTP method; use one of {METHODS}")
        # The whole host and port, not a prefix of them: a placeholder there would let the
        # model pick the server (https://a{host}/x).
        if not re.match(r"^https?://[^/{}\s?#]+(?:[/?#]|$)", self.endpoint):
            add(
                f"{tool}.endpoint: {self.endpoint!r} is not an absolute http(s) URL with a fixed "
                "host and port; write https://host/path/{placeholder} (placeholders only after "
                "the host)"
            )
        placeholders = _PLACEHOLDER.findall(self.endpoint)
        path_params = {p.name for p in self.parameters if p.position == "path"}
        for name in placeholders:
            if name not in path_params:
                add(
                    f"{tool}.endpoint: placeholder {{{name}}} has no parameter; add a parameter "
                    f"named {name!r} with position 'path'"
                )
        seen: set[str] = set()
        for index, param in enumerate(self.parameters):
            where = f"{tool}.parameters[{index}] ({param.name!r})"
            if param.name in seen:
                add(f"{where}: duplicate parameter name; give each parameter its own name")
            seen.add(param.name)
            if param.position not in POSITIONS:
                add(f"{where}.position: {param.position!r} is unknown; use one of {POSITIONS}")
            if param.schema_ is None and param.type_key not in TYPES:
                add(
                    f"{where}.parameter_type: {param.parameter_type!r} is unknown; use String, "
                    "Integer, Number, Boolean, Array or Object (or a JSON Schema under 'schema')"
                )
            if param.position == "path" and param.name not in placeholders:
                add(f"{where}: path parameter has no {{{param.name}}} placeholder in the endpoint")
            if param.position == "header" and not _TOKEN.match(param.name):
                add(f"{where}: {param.name!r} is not a valid HTTP header name (token characters)")
            if param.value_from is not None and param.context_key is None:
                add(f"{where}.value_from: write 'context.<key>', not {param.value_from!r}")
        for header in self.headers:
            if not _TOKEN.match(header):
                add(
                    f"{tool}.headers: {header!r} is not a valid HTTP header name (token characters)"
                )
        if self.auth.type == "header" and not _TOKEN.match(self.auth.header):
            add(f"{tool}.auth.header: {self.auth.header!r} is not a valid HTTP header name")
        for name in self.variables():
            if name not in os.environ:
                add(
                    f"{tool}: environment variable {name} is not set; export it or write "
                    f"${{{name}:-default}}"
                )
        return found

    def __repr__(self) -> str:
        return f"HttpToolConfig(method={self.verb!r}, endpoint={self.endpoint!r})"


#: Kept for callers of the earlier name.
expand = expand_vars


def parse_tool_configs(
    data: Mapping[str, Any], *, source: str = "config"
) -> tuple[dict[str, HttpToolConfig], list[str]]:
    """Build configs from ``name -> config`` data; return them with every problem found.

    A config may be a dict, an :class:`HttpToolConfig`, or a dict wrapped as ``{"HTTP": ...}``.
    """
    configs: dict[str, HttpToolConfig] = {}
    problems: list[str] = []
    for name, raw in data.items():
        if isinstance(raw, HttpToolConfig):
            config = raw
        else:
            if isinstance(raw, Mapping) and set(raw) == {"HTTP"}:
                raw = raw["HTTP"]
            if not isinstance(raw, Mapping):
                problems.append(f"{name}: expected an object, got {type(raw).__name__}")
                continue
            try:
                config = HttpToolConfig.model_validate(dict(raw))
            except ValidationError as exc:
                for error in exc.errors():
                    field = ".".join(str(p) for p in error["loc"])
                    problems.append(f"{name}.{field}: {error['msg']}")
                continue
        configs[str(name)] = config
        problems.extend(config.problems(str(name)))
    if not data:
        problems.append(
            f'{source}: no HTTP tools found; write {{"httpTools": {{"name": {{...}}}}}}'
        )
    return configs, problems
