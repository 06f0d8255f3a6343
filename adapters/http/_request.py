"""Building one HTTP request from a tool's config and validated arguments."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from adapters.http._config import HttpToolConfig, expand
from toolkit.catalog.path_values import path_value_problem
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError

__all__ = ["BuiltRequest", "build_request"]

MAX_HEADER_BYTES = 8192
#: Anything but visible ASCII, space and tab.
_BAD_HEADER_CHAR = re.compile(r"[^\t\x20-\x7e]")
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


def build_request(
    config: HttpToolConfig, arguments: dict[str, Any], context: ToolContext
) -> BuiltRequest:
    """Fill the endpoint, query, headers and body from ``arguments`` and ``context``.

    Raises:
        ToolError: ``INVALID_PARAMS`` for a path value that would leave its segment (``.``,
            ``..``, ``../``) or a header value with a control character, non-ASCII text, or
            over 8 KB.
    """
    method = config.verb
    url = config.endpoint
    request = BuiltRequest(method=method, url=url)
    body: dict[str, Any] = {}
    for param in config.parameters:
        key = param.context_key
        if key is not None:
            if key not in context.values:
                raise ToolError(
                    f"parameter {param.name!r} comes from the call context key {key!r}, which "
                    "this call does not carry; pass it in the context",
                    code=ErrorCode.INVALID_PARAMS,
                )
            value = context.values[key]
        elif param.name in arguments:
            value = arguments[param.name]
        elif param.default_value is not None:
            value = param.default_value
        else:
            continue
        position = param.position
        if position == "body" and method in _NO_BODY:
            position = "query"
        if position == "path":
            url = url.replace("{" + param.name + "}", _path_segment(param.name, value))
        elif position == "query":
            request.params.extend((param.name, v) for v in _query_values(value))
        elif position == "header":
            request.headers[param.name] = _header_value(param.name, _scalar(value))
        else:
            body[param.name] = value
    request.url = url
    fixed = {k: expand(v) for k, v in config.headers.items()}
    request.headers = {**fixed, **config.auth.headers(), **request.headers}
    if body:
        request.body = body
    elif method in _NO_BODY:
        # A GET with no body needs no Content-Type; keep what the config says otherwise.
        pass
    return request


def _scalar(value: Any) -> str:
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
