"""One HTTP endpoint as a :class:`toolkit.Tool`: :class:`HttpTool`."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cached_property
from typing import Any

import anyio
import httpx

from adapters.http._config import IDEMPOTENT, HttpToolConfig
from adapters.http._request import BuiltRequest, build_request
from adapters.http._template import ResponseTemplate
from toolkit import JsonSchemaTool
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.network import NetworkPolicy, NetworkPolicyError
from toolkit.result import ToolResult
from toolkit.spec import ToolAnnotations, ToolOptions, ToolSpec

__all__ = ["HttpTool"]

#: Statuses worth a retry (with an idempotent method).
RETRY_STATUSES = frozenset({429, 502, 503, 504})
MAX_ERROR_TEXT = 500
MAX_RETRY_AFTER = 30.0
_BACKOFF = 0.2

ClientFactory = Callable[[], httpx.AsyncClient]


class HttpTool(JsonSchemaTool):
    """An HTTP endpoint declared by an :class:`HttpToolConfig`.

    Arguments are validated against the spec's JSON Schema (through :class:`JsonSchemaTool`)
    before anything is sent. Context-bound parameters (``value_from: context.<key>``) are not in
    the schema: the model never sees or sets them.

    Args:
        name: The registry name.
        config: The endpoint's config (checked by the toolset at load time).
        client: Returns the pooled ``httpx.AsyncClient`` for the running event loop.
        network_policy: Checked for every request before it is sent.
        template: The compiled response template (``None``: JSON as JSON text).
        source: Where the tool came from, for its spec (a file, an OpenAPI document).
    """

    def __init__(
        self,
        name: str,
        config: HttpToolConfig,
        *,
        client: ClientFactory,
        network_policy: NetworkPolicy,
        template: ResponseTemplate | None = None,
        source: str = "",
    ) -> None:
        self._name = name
        self.config = config
        self._client = client
        self._policy = network_policy
        self._template = template
        self._source = source or f"http:{config.verb} {config.endpoint}"

    @property
    def name(self) -> str:
        """The registry name."""
        return self._name

    @cached_property
    def spec(self) -> ToolSpec:
        """The spec every sink sees; context-bound parameters are left out."""
        config = self.config
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in config.parameters:
            if param.context_key is not None:
                continue
            properties[param.name] = param.json_schema()
            if param.required and param.default_value is None:
                required.append(param.name)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        read_only = config.read_only
        if read_only is None:
            read_only = config.verb in ("GET", "HEAD", "OPTIONS")
        return ToolSpec(
            name=self._name,
            description=config.description or f"{config.verb} {config.endpoint}",
            input_schema=schema,
            annotations=ToolAnnotations(
                read_only=read_only,
                destructive=config.verb == "DELETE" or None,
                idempotent=config.verb in IDEMPOTENT,
                open_world=True,
            ),
            tags=frozenset({"http"}),
            options=ToolOptions(timeout=None, retries=0),
            source=self._source,
        )

    def renamed(self, name: str) -> HttpTool:
        """The same endpoint under another registry name."""
        return HttpTool(
            name,
            self.config,
            client=self._client,
            network_policy=self._policy,
            template=self._template,
            source=self._source,
        )

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Send the request (with retries where safe) and turn the response into a result.

        Raises:
            ToolError: ``INVALID_PARAMS`` (bad path or header value), ``DENIED`` (network
                policy), ``TIMEOUT``, ``UNREACHABLE``, ``AUTH_FAILED`` (401/403) or
                ``EXECUTION_ERROR`` (other non-2xx statuses, with the server's text).
        """
        request = build_request(self.config, arguments, context)
        try:
            await self._policy.check(request.url, server=self._name)
        except NetworkPolicyError as exc:
            raise ToolError(str(exc), code=ErrorCode.DENIED) from None
        response = await self._send_with_retries(request)
        return await self._result(response, context)

    @property
    def _may_retry(self) -> bool:
        return self.config.verb in IDEMPOTENT or self.config.retry_non_idempotent

    async def _send_with_retries(self, request: BuiltRequest) -> httpx.Response:
        attempts = 1 + (self.config.retry_count if self._may_retry else 0)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = await self._send(request)
            except httpx.ConnectError as exc:
                if last:
                    raise self._unreachable(request, exc) from None
                await anyio.sleep(_backoff(attempt))
                continue
            if response.status_code in RETRY_STATUSES and not last:
                wait = _retry_after(response)
                await anyio.sleep(_backoff(attempt) if wait is None else wait)
                continue
            return response
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns

    async def _send(self, request: BuiltRequest) -> httpx.Response:
        client = self._client()
        try:
            return await client.request(
                request.method,
                request.url,
                params=request.params or None,
                headers=request.headers,
                json=request.body,
                timeout=self.config.timeout_seconds,
            )
        except NetworkPolicyError as exc:
            # The connect-time check (the transport is pinned): the name now resolves to an
            # address the policy refuses, e.g. DNS rebinding since the check above. Never retried.
            raise ToolError(str(exc), code=ErrorCode.DENIED) from None
        except httpx.TimeoutException as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                raise httpx.ConnectError(str(exc)) from exc
            raise ToolError(
                f"{self._name}: {request.method} {_where(request)} took longer than "
                f"{self.config.timeout_seconds:g} s; try again later or ask for less",
                code=ErrorCode.TIMEOUT,
            ) from None
        except httpx.HTTPError as exc:
            if isinstance(exc, httpx.ConnectError):
                raise
            raise self._unreachable(request, exc) from None

    def _unreachable(self, request: BuiltRequest, exc: Exception) -> ToolError:
        return ToolError(
            f"{self._name}: could not reach {_where(request)} ({type(exc).__name__}); "
            "the service may be down, try again later",
            code=ErrorCode.UNREACHABLE,
        )

    async def _result(self, response: httpx.Response, context: ToolContext) -> ToolResult:
        status = response.status_code
        if not 200 <= status < 300:
            raise self._status_error(response)
        data, is_json = _decode(response)
        if is_json:
            if self._template is not None:
                # A render may take up to its time limit: never on the event loop.
                text = await anyio.to_thread.run_sync(self._template.render, data)
            else:
                text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            result = ToolResult(content=text, structured=data, tool=self._name)
        else:
            result = ToolResult(content=response.text, tool=self._name)
        result.call_id = context.call_id
        return result

    def _status_error(self, response: httpx.Response) -> ToolError:
        status = response.status_code
        text = self._mask(_error_text(response))
        said = f": {text}" if text else ""
        head = f"{self._name}: the service answered HTTP {status} {response.reason_phrase}{said}"
        details = {"status": status}
        if status in (401, 403):
            return ToolError(
                f"{head}. The credentials were refused; this is not fixed by retrying "
                "(check the tool's auth or token).",
                code=ErrorCode.AUTH_FAILED,
                details=details,
            )
        if status == 404:
            return ToolError(
                f"{head}. Nothing exists at that address; check the identifiers you passed.",
                details=details,
            )
        if status in (409, 422):
            what = "conflicts with the current state" if status == 409 else "was rejected"
            return ToolError(
                f"{head}. The request {what}; change the arguments rather than retrying.",
                code=ErrorCode.INVALID_PARAMS if status == 422 else ErrorCode.EXECUTION_ERROR,
                details=details,
            )
        if status == 429:
            wait = _retry_after(response)
            after = f" after {wait:g} s" if wait is not None else " later"
            return ToolError(
                f"{head}. Too many requests; try again{after}.",
                retryable=True,
                details={**details, "retry_after": wait},
            )
        if status >= 500:
            return ToolError(
                f"{head}. The service failed; try again later.",
                code=ErrorCode.UNREACHABLE
                if status in RETRY_STATUSES
                else ErrorCode.EXECUTION_ERROR,
                retryable=status in RETRY_STATUSES,
                details=details,
            )
        return ToolError(f"{head}.", details=details)

    def _mask(self, text: str) -> str:
        for secret in self.config.secrets():
            text = text.replace(secret, "***")
        return text

    def view_facts(self) -> list[tuple[str, str]]:
        """The request a call sends, for the notebook view (secrets masked)."""
        config = self.config
        facts = [("request", self._mask(f"{config.verb} {config.endpoint}"))]
        bound = [p.name for p in config.parameters if p.context_key is not None]
        if bound:
            facts.append(("from context", ", ".join(bound)))
        if config.response_template is not None:
            facts.append(("response", "rendered by a template"))
        return facts

    def __repr__(self) -> str:
        return f"HttpTool({self._name!r}, {self.config.verb} {self.config.endpoint!r})"


def _decode(response: httpx.Response) -> tuple[Any, bool]:
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return response.json(), True
        except ValueError:
            return response.text, False
    return response.text, False


def _error_text(response: httpx.Response) -> str:
    data, is_json = _decode(response)
    if is_json and isinstance(data, dict):
        for key in ("detail", "message", "error", "error_description", "title"):
            if key in data:
                value = data[key]
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                break
        else:
            text = json.dumps(data, ensure_ascii=False)
    else:
        text = response.text if not is_json else json.dumps(data, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_TEXT else text[: MAX_ERROR_TEXT - 1] + "…"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = (moment - datetime.now(UTC)).total_seconds()
    return max(0.0, min(seconds, MAX_RETRY_AFTER))


def _backoff(attempt: int) -> float:
    delay: float = min(_BACKOFF * 2.0 ** (attempt - 1), 5.0)
    return delay * (0.5 + random.random() / 2)


def _where(request: BuiltRequest) -> str:
    return request.url.split("?")[0]
