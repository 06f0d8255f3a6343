"""Building one HTTP request from a tool's config and validated arguments."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from adapters._env_vars import VAR_PATTERN
from adapters.http._config import HttpToolConfig, expand
from toolkit.catalog.path_values import path_value_problem
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError

__all__ = ["BuiltRequest", "RequestPlan", "build_request"]

MAX_HEADER_BYTES = 8192
#: Anything but visible ASCII, space and tab.
_BAD_HEADER_CHAR = re.compile(r"[^\t\x20-\x7e]")
#: A path value that needs no quoting and cannot leave its segment (except "." and "..").
_PLAIN_SEGMENT = re.compile(r"[A-Za-z0-9._~-]+")
#: Methods whose ``body`` parameters go into the query string.
_NO_BODY = frozenset({"GET", "HEAD", "DELETE"})


@dataclass(slots=True)
class BuiltRequest:
    """What is sent: method, URL (path filled in), query, headers and JSON body."""

    method: str
    url: str
    params: list[tuple[str, str | int | float | bool | None]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None


class RequestPlan:
    """What a call's request is made of, worked out once from the config (when the tool is built).

    Every call fills the same endpoint, parameters and headers; only the values change. The
    plan keeps each parameter's position (a ``body`` parameter of a GET goes to the query), and
    the fixed and auth headers ready-made when they reference no environment variable (a
    ``${VAR}`` is still expanded at every call, so a rotated credential is sent at once).

    Args:
        config: The endpoint's config (checked by the toolset at load time).
    """

    __slots__ = ("_config", "_fixed", "endpoint", "method", "steps")

    def __init__(self, config: HttpToolConfig) -> None:
        self._config = config
        self.method = method = config.verb
        self.endpoint = config.endpoint
        self.steps: tuple[tuple[str, str, str | None, Any], ...] = tuple(
            (
                p.name,
                "query" if p.position == "body" and method in _NO_BODY else p.position,
                p.context_key,
                p.default_value,
            )
            for p in config.parameters
        )
        variable = any(VAR_PATTERN.search(t) for t in (*config.headers.values(), config.auth.token))
        self._fixed = None if variable else self._headers()

    @property
    def static(self) -> bool:
        """Whether the headers reference no environment variable (then nothing is a secret)."""
        return self._fixed is not None

    def _headers(self) -> dict[str, str]:
        config = self._config
        return {**{k: expand(v) for k, v in config.headers.items()}, **config.auth.headers()}

    def build(self, arguments: dict[str, Any], context: ToolContext) -> BuiltRequest:
        """Fill the endpoint, query, headers and body from ``arguments`` and ``context``.

        Raises:
            ToolError: ``INVALID_PARAMS`` for a path value that would leave its segment (``.``,
                ``..``, ``../``) or a header value with a control character, non-ASCII text, or
                over 8 KB; a context-bound parameter whose key the context does not carry.
        """
        url = self.endpoint
        params: list[tuple[str, str | int | float | bool | None]] = []
        fixed = self._fixed
        headers = dict(fixed) if fixed is not None else self._headers()
        body: dict[str, Any] = {}
        for name, position, key, default in self.steps:
            if key is not None:
                if key not in context.values:
                    raise ToolError(
                        f"parameter {name!r} comes from the call context key {key!r}, which "
                        "this call does not carry; pass it in the context",
                        code=ErrorCode.INVALID_PARAMS,
                    )
                value = context.values[key]
            elif name in arguments:
                value = arguments[name]
            elif default is not None:
                value = default
            else:
                continue
            if position == "path":
                url = url.replace("{" + name + "}", _path_segment(name, value))
            elif position == "query":
                params.extend((name, v) for v in _query_values(value))
            elif position == "header":  # a parameter's header wins over a fixed one
                headers[name] = _header_value(name, _scalar(value))
            else:
                body[name] = value
        return BuiltRequest(self.method, url, params, headers, body or None)


def build_request(
    config: HttpToolConfig, arguments: dict[str, Any], context: ToolContext
) -> BuiltRequest:
    """:meth:`RequestPlan.build` for a config planned on the spot (a tool keeps its plan)."""
    return RequestPlan(config).build(arguments, context)


def _scalar(value: Any) -> str:
    if type(value) is str:
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _query_values(value: Any) -> list[str]:
    if isinstance(value, list):
        return [_scalar(v) for v in value]
    return [_scalar(value)]


def _path_segment(name: str, value: Any) -> str:
    text = _scalar(value)
    if _PLAIN_SEGMENT.fullmatch(text) and text not in (".", ".."):
        return text  # unreserved characters only: quoting keeps it, and the rule holds
    problem = path_value_problem(text, segment=False)
    if problem is not None:
        raise ToolError(
            f"{name}: {text!r} is not a valid path value: it {problem} (empty, '.', NUL and "
            "'..' segments are refused because they would change the endpoint's path)",
            code=ErrorCode.INVALID_PARAMS,
        )
    return quote(text, safe="")


def _header_value(name: str, text: str) -> str:
    """``text`` as a header value, or ``INVALID_PARAMS``.

    Rule: a header value from a model is visible ASCII, spaces and tabs, at most 8 KB; surrounding
    whitespace is dropped (HTTP ignores it). Line breaks, other control characters (``\\x0b``,
    ``\\x7f``, NUL) and non-ASCII text are refused before anything is sent, so a bad value is
    the model's to fix, never a transport failure.
    """
    text = text.strip(" \t")
    bad = _BAD_HEADER_CHAR.search(text)
    if bad is not None:
        what = "line breaks" if bad.group() in "\r\n" else f"the character {bad.group()!r}"
        raise ToolError(
            f"{name}: header values cannot contain {what}; send printable ASCII on one line",
            code=ErrorCode.INVALID_PARAMS,
        )
    if len(text) > MAX_HEADER_BYTES:
        raise ToolError(
            f"{name}: header value is longer than {MAX_HEADER_BYTES} bytes; send a shorter value",
            code=ErrorCode.INVALID_PARAMS,
        )
    return text
