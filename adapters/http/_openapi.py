"""OpenAPI 3.0/3.1 operations as HTTP tool configs.

Rules: a document is untrusted input. Its ``$ref`` expansion is bounded and its shapes are
checked (``adapters.http._openapi_refs``): whatever it holds, loading it ends quickly with
configs or an :class:`HttpConfigError` naming the path in the document. Two operations whose
ids become the same tool name are refused, naming both and the fix; one never silently
replaces the other.
"""

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
from pydantic import ValidationError

from adapters._net import pinned_httpx_transport
from adapters.http._body import ACCEPT_ENCODING, BodyTooLargeError, UnreadableEncodingError, receive
from adapters.http._config import HttpConfigError, HttpParameter, HttpToolConfig
from adapters.http._openapi_refs import BudgetError, Refs, mapping, pointer, sequence
from adapters.network import NetworkPolicy, NetworkPolicyError
from toolkit import run_sync

__all__ = ["LIMITS", "load_openapi", "openapi_configs"]

#: The settings an OpenAPI import applies to every operation.
LIMITS = ("timeout_seconds", "max_response_bytes")

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
_INVALID = re.compile(r"[^a-zA-Z0-9_-]+")
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
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as exc:
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
        RecursionError,
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
    limits: Mapping[str, Any] | None = None,
) -> dict[str, HttpToolConfig]:
    """One config per operation, keyed by tool name.

    ``limits`` (``timeout_seconds``, ``max_response_bytes``) apply to every operation.

    Raises:
        HttpConfigError: No base URL, a malformed document, a clash of tool names, or
            operations that cannot become tools (all listed, each with its path).
    """
    label = origin or "document"
    document = mapping(document, label)
    version = str(document.get("openapi", ""))
    if not version.startswith("3."):
        raise HttpConfigError([f"{label}: not an OpenAPI 3.x document (openapi: {version!r})"])
    wanted = _names(include, "include")
    unwanted = _names(exclude, "exclude") or set()
    base = _base_url(document, base_url, origin)
    limits = _limits(limits or {})
    refs = Refs(document)
    configs: dict[str, HttpToolConfig] = {}
    owners: dict[str, str] = {}
    problems: list[str] = []
    paths = mapping(document.get("paths") or {}, "#/paths")
    for path, raw_item in paths.items():
        try:
            item, item_where = refs.resolve(raw_item, pointer("#/paths", path))
            item = mapping(item, item_where)
            shared_where = f"{item_where}/parameters"
            shared = [
                (pointer(shared_where, i), p)
                for i, p in enumerate(sequence(item.get("parameters", []), shared_where))
            ]
        except BudgetError:
            raise
        except HttpConfigError as exc:
            problems.extend(exc.problems)
            continue
        for method in _METHODS:
            if method not in item:
                continue
            where = f"{item_where}/{method}"
            try:
                op, where = refs.resolve(item[method], where)
                op = mapping(op, where)
                op_id = op.get("operationId") or f"{method}_{path}"
                if not isinstance(op_id, str):
                    raise HttpConfigError([f"{where}/operationId: expected a string"])
                tags = sequence(op.get("tags", []), f"{where}/tags")
                keys = {op_id, *(t for t in tags if isinstance(t, str))}
                if (wanted is not None and not keys & wanted) or keys & unwanted:
                    continue
                name = _tool_name(op_id)
                config = _operation(refs, base, str(path), method, op, where, shared)
                if limits:
                    config = config.model_copy(update=limits)
            except BudgetError:
                raise
            except HttpConfigError as exc:
                problems.extend(exc.problems)
                continue
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                problems.append(f"{where}: cannot become a tool ({exc})")
                continue
            this = f"{method.upper()} {path} (operationId {op_id!r})"
            if name in owners:
                problems.append(
                    f"{where}: {this} and {owners[name]} both become the tool name {name!r}; "
                    f"give one a distinct operationId, or leave one out with "
                    f"exclude=[{op_id!r}]"
                )
                continue
            owners[name] = this
            configs[name] = config
    if problems:
        raise HttpConfigError(problems)
    if not configs:
        raise HttpConfigError([f"{label}: no operations left to turn into tools"])
    return configs


def _limits(given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` checked once (not once per operation) against the tool config's rules."""
    unknown = set(given) - set(LIMITS)
    if unknown:
        raise HttpConfigError([f"openapi: unknown settings {sorted(unknown)}; use {LIMITS}"])
    try:
        checked = HttpToolConfig(endpoint="http://checked", **given)
    except ValidationError as exc:
        raise HttpConfigError(
            [f"openapi.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        ) from None
    return {key: getattr(checked, key) for key in given}


def _names(values: Any, what: str) -> set[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not all(isinstance(v, str) for v in sequence(values, what)):
        raise HttpConfigError([f"{what}: expected a list of operationIds and tags"])
    return set(values)


def _base_url(document: Mapping[str, Any], base_url: str | None, origin: str) -> str:
    if base_url:
        return base_url.rstrip("/")
    servers = sequence(document.get("servers") or [], "#/servers")
    first = mapping(servers[0], "#/servers/0") if servers else {}
    url = first.get("url", "")
    if not isinstance(url, str):
        raise HttpConfigError(["#/servers/0/url: expected a string"])
    if origin.startswith(("http://", "https://")):
        return urljoin(origin, url or "/").rstrip("/")
    if url.startswith(("http://", "https://")):
        return url.rstrip("/")
    raise HttpConfigError(
        [
            "the OpenAPI document has no absolute server URL; pass base_url= "
            "(e.g. base_url='http://127.0.0.1:8000')"
        ]
    )


def _tool_name(op_id: str) -> str:
    return (_INVALID.sub("_", op_id).strip("_") or "operation")[:64]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _operation(
    refs: Refs,
    base: str,
    path: str,
    method: str,
    op: Mapping[str, Any],
    where: str,
    shared: list[tuple[str, Any]],
) -> HttpToolConfig:
    params: dict[tuple[str, str], HttpParameter] = {}
    own_where = f"{where}/parameters"
    own = [
        (pointer(own_where, i), p)
        for i, p in enumerate(sequence(op.get("parameters", []), own_where))
    ]
    for raw_where, raw in [*shared, *own]:
        param, param_where = refs.resolve(raw, raw_where)
        param = mapping(param, param_where)
        position = param.get("in")
        if position == "cookie":
            continue
        if position not in ("query", "header", "path"):
            raise HttpConfigError(
                [f"{param_where}/in: {position!r} is not query, header, path or cookie"]
            )
        name = param.get("name")
        if not isinstance(name, str) or not name:
            raise HttpConfigError([f"{param_where}/name: expected a non-empty string"])
        raw_schema = param.get("schema")
        schema = dict(
            mapping(refs.expand(raw_schema, f"{param_where}/schema"), f"{param_where}/schema")
            if raw_schema is not None
            else {"type": "string"}
        )
        schema.pop("title", None)
        params[(position, name)] = HttpParameter(
            name=name,
            schema=schema,
            description=_text(param.get("description")),
            required=bool(param.get("required", position == "path")),
            position=position,
        )
    _body_parameters(refs, op, where, params)
    names = [p.name for p in params.values()]
    if len(set(names)) != len(names):
        raise HttpConfigError(
            [f"{where}: two parameters share a name; rename one or exclude the operation"]
        )
    summary, description = _text(op.get("summary")), _text(op.get("description"))
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


def _body_parameters(
    refs: Refs, op: Mapping[str, Any], where: str, params: dict[tuple[str, str], HttpParameter]
) -> None:
    """The JSON body's properties as ``body`` parameters (or one ``body`` parameter)."""
    if op.get("requestBody") is None:
        return
    body, body_where = refs.resolve(op["requestBody"], f"{where}/requestBody")
    body = mapping(body, body_where)
    content = mapping(body.get("content") or {}, f"{body_where}/content")
    kind = next((k for k in content if "json" in str(k)), None)
    if kind is None:
        return
    media_where = pointer(f"{body_where}/content", kind)
    media = mapping(content[kind], media_where)
    schema = mapping(refs.expand(media.get("schema") or {}, f"{media_where}/schema"), media_where)
    props = schema.get("properties") if schema.get("type", "object") == "object" else None
    if props:
        props = mapping(props, f"{media_where}/schema/properties")
        needed = schema.get("required", [])
        needed = set(n for n in needed if isinstance(n, str)) if isinstance(needed, list) else set()
        for name, raw_prop in props.items():
            prop = dict(mapping(raw_prop, pointer(f"{media_where}/schema/properties", name)))
            description = _text(prop.pop("description", "")) or _text(prop.get("title"))
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
            schema=dict(schema),
            required=bool(body.get("required")),
            description=_text(body.get("description")) or "The request body.",
            position="body",
        )
