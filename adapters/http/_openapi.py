"""OpenAPI 3.0/3.1 operations as HTTP tool configs."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import anyio
import httpx
import yaml

from adapters._net import pinned_httpx_transport
from adapters.http._body import ACCEPT_ENCODING, BodyTooLargeError, UnreadableEncodingError, receive
from adapters.http._config import HttpConfigError, HttpParameter, HttpToolConfig
from toolkit import run_sync
from toolkit.network import NetworkPolicy, NetworkPolicyError

__all__ = ["load_openapi", "openapi_configs"]

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
_INVALID = re.compile(r"[^a-zA-Z0-9_-]+")
_MAX_REF_DEPTH = 32
#: Limits of fetching a document by URL.
MAX_DOCUMENT_BYTES = 10_000_000
FETCH_SECONDS = 30.0


def load_openapi(
    spec: Mapping[str, Any] | str | Path, policy: NetworkPolicy
) -> tuple[dict[str, Any], str]:
    """The document as a dict and where it came from (a URL, a path or ``""``).

    Raises:
        HttpConfigError: It cannot be fetched, read or parsed, or the policy denies its URL.
    """
    if isinstance(spec, Mapping):
        return dict(spec), ""
    text = str(spec)
    if text.startswith(("http://", "https://")):
        return _fetch(text, policy), text
    path = Path(text)
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise HttpConfigError([f"{text}: cannot read the OpenAPI document ({exc})"]) from None
    if not isinstance(data, dict):
        raise HttpConfigError([f"{text}: an OpenAPI document is an object"])
    return data, str(path)


def _fetch(url: str, policy: NetworkPolicy) -> dict[str, Any]:
    """The document at ``url``, fetched like every outbound request: pinned and bounded.

    The connection goes only to an address ``policy`` judged (no second lookup by name), the
    answer is read within :data:`MAX_DOCUMENT_BYTES` decoded bytes and :data:`FETCH_SECONDS`.
    """

    async def get() -> dict[str, Any]:
        transport = pinned_httpx_transport(policy, server="openapi")
        headers = {"accept-encoding": ACCEPT_ENCODING}
        async with httpx.AsyncClient(
            transport=transport, follow_redirects=False, trust_env=False, headers=headers
        ) as client:
            with anyio.fail_after(FETCH_SECONDS):
                async with client.stream("GET", url, timeout=FETCH_SECONDS) as response:
                    reply = await receive(response, MAX_DOCUMENT_BYTES)
        if reply.status_code != 200:
            raise ValueError(f"HTTP {reply.status_code} {reply.reason_phrase}")
        kind = reply.headers.get("content-type", "")
        data = reply.json() if "json" in kind else yaml.safe_load(reply.text)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        return data

    try:
        return run_sync(get)
    except TimeoutError:
        problem = f"no complete answer within {FETCH_SECONDS:g} s"
    except BodyTooLargeError as exc:
        problem = f"larger than {exc.limit} bytes"
    except (
        NetworkPolicyError,
        UnreadableEncodingError,
        httpx.HTTPError,
        ValueError,
        yaml.YAMLError,
    ) as exc:
        problem = str(exc) or type(exc).__name__
    raise HttpConfigError([f"{url}: cannot fetch the OpenAPI document ({problem})"])


def openapi_configs(
    document: Mapping[str, Any],
    *,
    base_url: str | None = None,
    origin: str = "",
    include: list[str] | None = None,
    exclude: list[str] | None = None,
) -> dict[str, HttpToolConfig]:
    """One config per operation, keyed by tool name.

    Raises:
        HttpConfigError: No base URL, or operations that cannot become tools (all listed).
    """
    version = str(document.get("openapi", ""))
    if not version.startswith("3."):
        raise HttpConfigError(
            [f"{origin or 'document'}: not an OpenAPI 3.x document (openapi: {version!r})"]
        )
    base = _base_url(document, base_url, origin)
    configs: dict[str, HttpToolConfig] = {}
    problems: list[str] = []
    for path, item in (document.get("paths") or {}).items():
        item = _resolve(document, item)
        shared = item.get("parameters", [])
        for method in _METHODS:
            if method not in item:
                continue
            op = _resolve(document, item[method])
            op_id = op.get("operationId") or f"{method}_{path}"
            keys = {op_id, *op.get("tags", [])}
            if include is not None and not keys & set(include):
                continue
            if exclude and keys & set(exclude):
                continue
            name = _tool_name(op_id)
            try:
                configs[name] = _operation(document, base, path, method, op, shared)
            except (KeyError, TypeError, ValueError, HttpConfigError) as exc:
                problems.append(f"{name} ({method.upper()} {path}): {exc}")
    if problems:
        raise HttpConfigError(problems)
    if not configs:
        raise HttpConfigError([f"{origin or 'document'}: no operations left to turn into tools"])
    return configs


def _base_url(document: Mapping[str, Any], base_url: str | None, origin: str) -> str:
    if base_url:
        return base_url.rstrip("/")
    servers = document.get("servers") or []
    url = str(servers[0].get("url", "")) if servers else ""
    if origin.startswith(("http://", "https://")):
        return urljoin(origin, url or "/").rstrip("/")
    if url.startswith(("http://", "https://")):
        return str(url).rstrip("/")
    raise HttpConfigError(
        [
            "the OpenAPI document has no absolute server URL; pass base_url= "
            "(e.g. base_url='http://127.0.0.1:8000')"
        ]
    )


def _tool_name(op_id: str) -> str:
    return (_INVALID.sub("_", op_id).strip("_") or "operation")[:64]


def _resolve(document: Mapping[str, Any], node: Any, depth: int = 0) -> Any:
    """Resolve local ``$ref``s (``#/...``) recursively."""
    if depth > _MAX_REF_DEPTH:
        raise HttpConfigError(["$ref nesting is too deep (a reference cycle?)"])
    if isinstance(node, Mapping):
        if "$ref" in node:
            ref = str(node["$ref"])
            if not ref.startswith("#/"):
                raise ValueError(f"only local $refs are supported, got {ref!r}")
            target: Any = document
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            return _resolve(document, target, depth + 1)
        return {k: _resolve(document, v, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(document, v, depth + 1) for v in node]
    return node


def _operation(
    document: Mapping[str, Any],
    base: str,
    path: str,
    method: str,
    op: Mapping[str, Any],
    shared: list[Any],
) -> HttpToolConfig:
    params: dict[tuple[str, str], HttpParameter] = {}
    for raw in [*shared, *op.get("parameters", [])]:
        param = _resolve(document, raw)
        where = param.get("in")
        if where == "cookie":
            continue
        schema = dict(param.get("schema") or {"type": "string"})
        schema.pop("title", None)
        params[(where, param["name"])] = HttpParameter(
            name=param["name"],
            schema=schema,
            description=param.get("description", ""),
            required=bool(param.get("required", where == "path")),
            position=where,
        )
    body = _resolve(document, op.get("requestBody") or {})
    content = body.get("content") or {}
    json_body = next((v for k, v in content.items() if "json" in k), None)
    if json_body is not None:
        schema = json_body.get("schema") or {}
        props = schema.get("properties") if schema.get("type", "object") == "object" else None
        if props:
            needed = set(schema.get("required", []))
            for name, prop in props.items():
                prop = dict(prop)
                description = prop.pop("description", "") or prop.get("title", "")
                prop.pop("title", None)
                params[("body", name)] = HttpParameter(
                    name=name,
                    schema=prop,
                    description=description,
                    required=name in needed,
                    position="body",
                )
        else:
            params[("body", "body")] = HttpParameter(
                name="body",
                schema=schema or {},
                required=bool(body.get("required")),
                description=body.get("description", "The request body."),
                position="body",
            )
    names = [p.name for p in params.values()]
    if len(set(names)) != len(names):
        raise ValueError("two parameters share a name; rename one or exclude the operation")
    summary = op.get("summary") or ""
    description = op.get("description") or ""
    text = (
        f"{summary}\n\n{description}".strip()
        if summary and description != summary
        else (summary or description)
    )
    return HttpToolConfig(
        description=text or f"{method.upper()} {path}",
        endpoint=base + path,
        method=method.upper(),
        parameters=list(params.values()),
    )
